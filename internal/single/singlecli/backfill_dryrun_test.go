package singlecli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// A backfill's dry run, over the API (`"dryRun": true`) and on the CLI
// (`--dry-run`, text and JSON), says it wrote nothing, writes nothing, and
// counts — occurrences, first and last, new Runs, existing ones — what the
// backfill then does.
func TestABackfillDryRunWritesNothingAndCountsWhatTheBackfillThenDoes(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, manualFile)
	operator := newToken(t, dir, "op", "operate")
	db := readOnlyDB(t, dir)
	runs := func() int {
		t.Helper()
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM runs`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	window := []string{"triggers", "backfill", "hourly", "--from", "2020-01-01T00:00:00Z", "--to", "2020-01-01T05:00:00Z", "--data-dir", dir}
	if code, out, errOut := ql(t, "triggers", "backfill", "hourly", "--from", "2020-01-01T01:00:00Z", "--to", "2020-01-01T02:00:00Z", "--data-dir", dir); code != 0 {
		t.Fatalf("backfill of two hours: %d %q %q", code, out, errOut)
	}
	before := runs()

	code, out, errOut := ql(t, append(window, "--dry-run")...)
	want := "dry run, nothing was written: trigger hourly: 6 occurrences from 2020-01-01T00:00:00.000Z to 2020-01-01T05:00:00.000Z, 4 would be admitted, 2 already have a run"
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("backfill --dry-run: %d %q %q; want %q", code, out, errOut, want)
	}
	type report struct {
		DryRun                          bool
		Occurrences, Admitted, Existing int
		Truncated                       bool
		FirstMs, LastMs                 int64
		RunIDs                          []string
	}
	first, last := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), time.Date(2020, 1, 1, 5, 0, 0, 0, time.UTC).UnixMilli()
	preview := report{DryRun: true, Occurrences: 6, Admitted: 4, Existing: 2, FirstMs: first, LastMs: last, RunIDs: []string{}}
	var cliJSON report
	code, out, errOut = ql(t, append(window, "--dry-run", "-o", "json")...)
	if err := json.Unmarshal([]byte(out), &cliJSON); code != 0 || err != nil || fmt.Sprint(cliJSON) != fmt.Sprint(preview) || !strings.Contains(out, `"dryRun": true`) {
		t.Fatalf("backfill --dry-run -o json: %d %q %q (%v); want %+v", code, out, errOut, err, preview)
	}

	base := serveAPI(t, dir, "standalone")
	_, listed := call(t, "GET", base+"/api/v1/triggers", operator, "")
	list, _ := listed["triggers"].([]any)
	if len(list) != 1 {
		t.Fatalf("triggers: %v", listed)
	}
	id, _ := list[0].(map[string]any)["triggerId"].(string)
	body := fmt.Sprintf(`{"fromMs":%d,"toMs":%d,"dryRun":true}`, first, last)
	st, raw := call(t, "POST", base+"/api/v1/triggers/"+id+"/backfill", operator, body)
	var apiJSON report
	if b, _ := json.Marshal(raw); st != 200 || json.Unmarshal(b, &apiJSON) != nil || fmt.Sprint(apiJSON) != fmt.Sprint(preview) {
		t.Fatalf("backfill dry run over the API: %d %v; want %+v", st, raw, preview)
	}
	if got := runs(); got != before {
		t.Fatalf("%d runs after the dry runs, want %d as before them", got, before)
	}

	var done report
	code, out, errOut = ql(t, append(window, "-o", "json")...)
	if err := json.Unmarshal([]byte(out), &done); code != 0 || err != nil {
		t.Fatalf("backfill: %d %q %q (%v)", code, out, errOut, err)
	}
	if done.DryRun || len(done.RunIDs) != done.Admitted {
		t.Fatalf("backfill %+v: want no dry run and a run id per admitted occurrence", done)
	}
	done.DryRun, done.RunIDs = true, []string{}
	if fmt.Sprint(done) != fmt.Sprint(preview) {
		t.Fatalf("backfill %+v after its dry run %+v: want the same counts", done, preview)
	}
	if got := runs(); got != before+preview.Admitted {
		t.Fatalf("%d runs after the backfill, want %d", got, before+preview.Admitted)
	}
}
