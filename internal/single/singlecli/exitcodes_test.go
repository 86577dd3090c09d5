package singlecli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Input the store refuses as invalid exits 2, as input the command line
// refuses does, from every command: a cursor that is no run id, a backfill
// window reaching into the future (naming the flag, not the API's field).
// A name that names nothing, and a refusal by the trigger's state, are not
// the command line's fault: they exit 1.
func TestInputTheStoreRefusesExitsTwoAndARefusalByStateExitsOne(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, manualFile)
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	for _, c := range []struct {
		what  string
		args  []string
		code  int
		want  string
		never string
	}{
		{"a cursor that is no run id", []string{"runs", "list", "--after", "garbage"}, 2, "run listing: give the page cursor (after) as the id of the last run", ""},
		{"a window ending in the future", []string{"triggers", "backfill", "hourly", "--from", "2020-01-01T00:00:00Z", "--to", future}, 2,
			"the window's end (--to) is in the future", "toMs"},
		{"a window starting in the future", []string{"triggers", "backfill", "hourly", "--from", future, "--to", future}, 2,
			"the window's start (--from) is in the future", "fromMs"},
		{"the window reversed, as the command line checks it", []string{"triggers", "backfill", "hourly", "--from", "2020-01-02T00:00:00Z", "--to", "2020-01-01T00:00:00Z"}, 2,
			"--from 2020-01-02T00:00:00Z is after --to", ""},
		{"a trigger name that names nothing", []string{"triggers", "backfill", "nightly", "--from", "2020-01-01T00:00:00Z", "--to", "2020-01-01T01:00:00Z"}, 1,
			`no trigger named "nightly"`, ""},
	} {
		code, out, errOut := ql(t, append(c.args, "--data-dir", dir)...)
		if code != c.code || !strings.Contains(errOut, c.want) || (c.never != "" && strings.Contains(errOut, c.never)) {
			t.Errorf("%s: %d %q %q; want exit %d and %q", c.what, code, out, errOut, c.code, c.want)
		}
	}
	if code, out, errOut := ql(t, "triggers", "disable", "hourly", "--data-dir", dir); code != 0 {
		t.Fatalf("disable: %d %q %q", code, out, errOut)
	}
	code, _, errOut := ql(t, "triggers", "backfill", "hourly", "--from", "2020-01-01T00:00:00Z", "--to", "2020-01-01T01:00:00Z", "--data-dir", dir)
	if code != 1 || !strings.Contains(errOut, "is disabled") {
		t.Errorf("backfill of a disabled trigger: %d %q; want exit 1, the trigger's state refusing it", code, errOut)
	}
}

// A request the trigger's overlap policy refuses exits 3, in text and in
// JSON, having said so as the command says what it did: `triggers run`
// ("not run") and `runs rerun` ("not re-run"). Forced, the run exits 0.
func TestARequestTheOverlapPolicyRefusesExitsThree(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, manualFile)
	type result struct {
		RunID   string `json:"runId"`
		Created bool   `json:"created"`
		Skipped string `json:"skipped"`
	}
	run := func(wantCode int, args ...string) result {
		t.Helper()
		code, out, errOut := ql(t, append(args, "-o", "json", "--data-dir", dir)...)
		var r result
		if err := json.Unmarshal([]byte(out), &r); code != wantCode || err != nil {
			t.Fatalf("%v: %d %q %q (%v); want exit %d and the JSON report", args, code, out, errOut, err, wantCode)
		}
		return r
	}
	first := run(0, "triggers", "run", "hourly", "--request-id", "r1")
	if code, out, errOut := ql(t, "runs", "cancel", first.RunID, "--data-dir", dir); code != 0 {
		t.Fatalf("cancel: %d %q %q", code, out, errOut)
	}
	queued := run(0, "triggers", "run", "hourly", "--request-id", "r2")
	if !queued.Created {
		t.Fatalf("run r2 after r1 was cancelled: %+v, want a new Run", queued)
	}
	if r := run(3, "triggers", "run", "hourly", "--request-id", "r3"); r.Skipped != "overlap" || r.Created {
		t.Fatalf("run r3 behind r2: %+v, want it skipped by overlap", r)
	}
	code, out, errOut := ql(t, "triggers", "run", "hourly", "--request-id", "r3", "--data-dir", dir)
	if code != 3 || !strings.Contains(out, "trigger hourly: not run (overlap") || errOut != "" {
		t.Fatalf("run r3 behind r2, in text: %d %q %q; want exit 3 and only the report", code, out, errOut)
	}
	if r := run(3, "runs", "rerun", first.RunID, "--request-id", "again"); r.Skipped != "overlap" || r.Created {
		t.Fatalf("rerun of the cancelled run behind r2: %+v, want it skipped by overlap", r)
	}
	code, out, _ = ql(t, "runs", "rerun", first.RunID, "--request-id", "again", "--data-dir", dir)
	if code != 3 || !strings.Contains(out, "not re-run (overlap") {
		t.Fatalf("rerun behind r2, in text: %d %q; want exit 3 and the report", code, out)
	}
	if r := run(0, "triggers", "run", "hourly", "--request-id", "r3", "--force"); !r.Created {
		t.Fatalf("forced run r3: %+v, want a new Run", r)
	}
}
