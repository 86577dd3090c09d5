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

	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// A backfill's fromMs or toMs outside the instants --from and --to take
// (years 0000 to 9999) is refused, 400 field_out_of_range naming the
// range, never clamped to another window (a far past fromMs was taken as
// firstMs 0); the range's own ends are taken.
func TestABackfillInstantOutsideItsRangeIsRefusedNamingTheRange(t *testing.T) {
	t.Parallel()
	st := sqlitetest.Open(t)
	trig, _ := publishTrigger(t, st, "yearly", "0 0 1 1 *")
	h := authed(t, Config{Runs: st, Triggers: st, Detail: st, Manual: st, Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	backfill := func(from, to int64) (int, string, string) {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/triggers/"+trig+"/backfill", strings.NewReader(fmt.Sprintf(`{"fromMs":%d,"toMs":%d,"dryRun":true}`, from, to)))
		req.Host = "localhost"
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var a struct {
			Error struct{ Message, Reason string }
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &a)
		return rec.Code, a.Error.Reason, a.Error.Message
	}
	now := time.Now().UnixMilli()
	for _, c := range []struct {
		from, to int64
		field    string
	}{{-99999999999999999, now - 1000, "fromMs"}, {minInstantMs - 1, now - 1000, "fromMs"}, {0, 1 << 62, "toMs"}} {
		st, reason, msg := backfill(c.from, c.to)
		if st != http.StatusBadRequest || reason != "field_out_of_range" || !strings.HasPrefix(msg, `"`+c.field+`" `) ||
			!strings.Contains(msg, "(0000-01-01T00:00:00Z) … 253402300799999 (9999-12-31T23:59:59.999Z)") {
			t.Errorf("a backfill from %d to %d: %d %s %q; want 400 field_out_of_range naming %s and the range", c.from, c.to, st, reason, msg, c.field)
		}
	}
	if st, reason, msg := backfill(minInstantMs, now-1000); st != http.StatusOK {
		t.Errorf("a backfill from the range's first instant: %d %s %q; want it taken", st, reason, msg)
	}
}
