package singlecli

import (
	"encoding/json"
	"strings"
	"testing"
)

// A run now or a re-run the overlap policy refuses names the unfinished
// Run it was refused beside, in text with the command that shows it and in
// JSON as "unfinished", so the user can look at it or cancel it.
func TestARequestTheOverlapPolicyRefusesNamesTheEarlierRun(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, manualFile)
	type result struct {
		RunID      string `json:"runId"`
		Skipped    string `json:"skipped"`
		Unfinished string `json:"unfinished"`
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
	blocking := run(0, "triggers", "run", "hourly", "--request-id", "r2")
	if r := run(3, "triggers", "run", "hourly", "--request-id", "r3"); r.Skipped != "overlap" || r.Unfinished != blocking.RunID {
		t.Errorf("run behind %s, in JSON: %+v; want it skipped naming %s", blocking.RunID, r, blocking.RunID)
	}
	if r := run(3, "runs", "rerun", first.RunID, "--request-id", "again"); r.Skipped != "overlap" || r.Unfinished != blocking.RunID {
		t.Errorf("re-run behind %s, in JSON: %+v; want it skipped naming %s", blocking.RunID, r, blocking.RunID)
	}
	show := "`ql-edge runs show " + blocking.RunID + " --data-dir " + dir + "`"
	for _, args := range [][]string{{"triggers", "run", "hourly", "--request-id", "r3"}, {"runs", "rerun", first.RunID, "--request-id", "again"}} {
		code, out, _ := ql(t, append(args, "--data-dir", dir)...)
		if code != 3 || !strings.Contains(out, "the earlier run "+blocking.RunID) || !strings.Contains(out, show) {
			t.Errorf("%v behind %s, in text: %d %q; want exit 3 naming it and %s", args, blocking.RunID, code, out, show)
		}
	}
}
