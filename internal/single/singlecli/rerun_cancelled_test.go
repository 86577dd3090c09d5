package singlecli

import (
	"encoding/json"
	"strings"
	"testing"
)

// `ql runs rerun` of a Run of a cancel_previous trigger says which
// unfinished Run of the trigger it cancelled and that the re-run starts
// once that one has stopped, in text and -o json (cancelled), as
// `ql triggers run` does.
func TestRunsRerunSaysTheRunsCancelPreviousCancelled(t *testing.T) {
	t.Parallel()
	dir := cancelPreviousDir(t)
	runNow := func() string {
		t.Helper()
		var a struct {
			RunID string `json:"runId"`
		}
		code, out, errOut := ql(t, "triggers", "run", "demo/c", "--data-dir", dir, "-o", "json")
		if code != 0 || json.Unmarshal([]byte(out), &a) != nil || a.RunID == "" {
			t.Fatalf("run now: %d %q %q", code, out, errOut)
		}
		return a.RunID
	}
	orig := runNow()
	if code, out, errOut := ql(t, "runs", "cancel", orig, "--data-dir", dir); code != 0 {
		t.Fatalf("cancel the original: %d %q %q", code, out, errOut)
	}
	queued := runNow()
	code, out, errOut := ql(t, "runs", "rerun", orig, "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "its overlap policy, cancel_previous, cancelled the unfinished run "+queued+", and run ") ||
		!strings.Contains(out, "starts once it has stopped") {
		t.Fatalf("runs rerun beside queued run %s: %d %q %q; want it to say it cancelled that run", queued, code, out, errOut)
	}
	rerunID := strings.TrimSuffix(strings.Fields(strings.TrimPrefix(out, "run "+orig+": re-run as run "))[0], ",")
	var again struct {
		RunID     string   `json:"runId"`
		Cancelled []string `json:"cancelled"`
	}
	code, out, errOut = ql(t, "runs", "rerun", orig, "--data-dir", dir, "-o", "json")
	if code != 0 || json.Unmarshal([]byte(out), &again) != nil || len(again.Cancelled) != 1 || again.Cancelled[0] != rerunID {
		t.Fatalf("runs rerun -o json beside the queued re-run %s: %d %q %q; want cancelled [%s]", rerunID, code, out, errOut, rerunID)
	}
}
