package httpapi

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// A backfill body's cap is refused, 400 with the allowed range, when it is
// outside 1–100000, an explicit 0 included (as the CLI refuses --max 0),
// while a body that leaves max out gets the default; the store's refusals
// of the window name the body's fields (toMs), never the CLI's flags.
func TestTheAPIRefusesABackfillCapOutsideItsRangeAndNamesItsOwnFields(t *testing.T) {
	t.Parallel()
	st := sqlitetest.Open(t)
	trig, _ := publishTrigger(t, st, "hourly", "0 * * * *")
	srv := httptest.NewServer(authed(t, Config{Runs: st, Triggers: st, Detail: st, Manual: st, Ready: func() (bool, string) { return true, "" },
		Log: slog.New(slog.DiscardHandler)}))
	t.Cleanup(srv.Close)
	type answer struct {
		Occurrences int
		Error       struct{ Code, Message string }
	}
	backfill := func(body string) (int, answer) {
		t.Helper()
		resp, err := http.Post(srv.URL+"/api/v1/triggers/"+trig+"/backfill", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var a answer
		if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, a
	}
	from := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	to := from + 5*time.Hour.Milliseconds()
	for _, n := range []int{0, -1, schedule.MaxBackfill + 1} {
		status, a := backfill(fmt.Sprintf(`{"fromMs":%d,"toMs":%d,"max":%d,"dryRun":true}`, from, to, n))
		if status != http.StatusBadRequest || a.Error.Code != "invalid" || !strings.Contains(a.Error.Message, fmt.Sprintf(`"max" %d is outside 1–100000`, n)) ||
			!strings.Contains(a.Error.Message, "leave it out for 1000") {
			t.Errorf("a backfill with max %d: %d %+v; want 400 saying the range 1–100000 and the default", n, status, a)
		}
	}
	for _, body := range []string{fmt.Sprintf(`{"fromMs":%d,"toMs":%d,"dryRun":true}`, from, to), fmt.Sprintf(`{"fromMs":%d,"toMs":%d,"max":1,"dryRun":true}`, from, to)} {
		if status, a := backfill(body); status != http.StatusOK || a.Occurrences < 1 {
			t.Errorf("a backfill %s: %d %+v; want its occurrences", body, status, a)
		}
	}
	future := time.Now().Add(time.Hour).UnixMilli()
	status, a := backfill(fmt.Sprintf(`{"fromMs":%d,"toMs":%d,"dryRun":true}`, from, future))
	if status != http.StatusBadRequest || !strings.Contains(a.Error.Message, "the window's end (toMs) is in the future") || strings.Contains(a.Error.Message, "--") {
		t.Errorf("a backfill ending in the future: %d %+v; want 400 naming toMs and no flag", status, a)
	}
}
