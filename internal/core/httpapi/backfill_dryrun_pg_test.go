package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/cluster/replica"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// On PostgreSQL too, a backfill's dry run over the API and on the CLI
// (the runtime role) writes nothing and counts what the backfill then
// does. Not parallel: the runtime role's URL holds a password, so it
// reaches the CLI through $QL_DATABASE_URL.
func TestABackfillDryRunWritesNothingAndCountsWhatTheBackfillThenDoesOnPostgreSQL(t *testing.T) {
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("dry", 1, clustertest.QuietCron()))
	rt := env.Runtime(t, "replica-dry", 30*time.Second)
	srv := httptest.NewServer(httpapi.Authed(t, httpapi.Config{Runs: rt, Triggers: rt, Manual: rt, Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)}))
	t.Cleanup(srv.Close)
	t.Setenv("QL_DATABASE_URL", env.URL(pgstore.RoleRuntime))
	opts := cli.Options{Binary: "ql", OpenPostgres: replica.Open}
	ql := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := cli.Main(context.Background(), opts, args, &out, &errOut)
		return code, out.String(), errOut.String()
	}
	statuses, _, err := rt.TriggerList(t.Context(), schedule.TriggerListParams{Limit: 10})
	if err != nil || len(statuses) != 1 {
		t.Fatalf("triggers: %v %v", statuses, err)
	}
	id := statuses[0].TriggerID
	from, to := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2020, 1, 1, 2, 59, 59, 0, time.UTC)
	if code, out, errOut := ql("triggers", "backfill", id, "--from", from.Format(time.RFC3339), "--to", from.Add(time.Hour-time.Second).Format(time.RFC3339)); code != 0 || !strings.Contains(out, ": 1 occurrence from ") || !strings.Contains(out, ", 1 admitted, ") {
		t.Fatalf("backfill of the first hour: %d %q %q", code, out, errOut)
	}
	runs := func() int64 { return env.Int(t, `SELECT count(*) FROM qinglong.runs`) }
	before := runs()

	type report struct {
		DryRun                          bool
		Occurrences, Admitted, Existing int
		Truncated                       bool
		FirstMs, LastMs                 int64
		RunIDs                          []string
	}
	backfill := func(dry bool) report {
		t.Helper()
		body := fmt.Sprintf(`{"fromMs":%d,"toMs":%d,"dryRun":%t}`, from.UnixMilli(), to.UnixMilli(), dry)
		resp, err := http.Post(srv.URL+"/api/v1/triggers/"+id+"/backfill", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var r report
		if err := json.Unmarshal(raw, &r); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("backfill %s: %d %q (%v)", body, resp.StatusCode, raw, err)
		}
		return r
	}
	preview := backfill(true)
	if !preview.DryRun || preview.Occurrences != 3 || preview.Admitted != 2 || preview.Existing != 1 || len(preview.RunIDs) != 0 ||
		preview.FirstMs < from.UnixMilli() || preview.LastMs > to.UnixMilli() || preview.FirstMs >= preview.LastMs {
		t.Fatalf("dry run over the API: %+v; want three occurrences in the window, two to admit, one existing, no run ids", preview)
	}
	var cliPreview report
	code, out, errOut := ql("triggers", "backfill", id, "--from", from.Format(time.RFC3339), "--to", to.Format(time.RFC3339), "--dry-run", "-o", "json")
	if err := json.Unmarshal([]byte(out), &cliPreview); code != 0 || err != nil || fmt.Sprint(cliPreview) != fmt.Sprint(preview) {
		t.Fatalf("backfill --dry-run -o json: %d %q %q (%v); want %+v as over the API", code, out, errOut, err, preview)
	}
	if got := runs(); got != before {
		t.Fatalf("%d runs after the dry runs, want %d as before them", got, before)
	}
	done := backfill(false)
	if done.DryRun || len(done.RunIDs) != done.Admitted {
		t.Fatalf("backfill %+v: want no dry run and a run id per admitted occurrence", done)
	}
	done.DryRun, done.RunIDs = true, nil
	if fmt.Sprint(done) != fmt.Sprint(preview) {
		t.Fatalf("backfill %+v after its dry run %+v: want the same counts", done, preview)
	}
	if got := runs(); got != before+int64(preview.Admitted) {
		t.Fatalf("%d runs after the backfill, want %d", got, before+int64(preview.Admitted))
	}
}
