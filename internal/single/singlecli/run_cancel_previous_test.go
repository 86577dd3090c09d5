package singlecli

import (
	"encoding/json"
	"strings"
	"testing"
)

// `ql triggers run` of a cancel_previous trigger says which unfinished Run
// it cancelled and that the new one starts once that one has stopped, in
// text and -o json (cancelled).
func TestTriggersRunSaysTheRunCancelPreviousCancelled(t *testing.T) {
	t.Parallel()
	dir := cancelPreviousDir(t)
	var first struct {
		RunID     string   `json:"runId"`
		Cancelled []string `json:"cancelled"`
	}
	code, out, errOut := ql(t, "triggers", "run", "demo/c", "--data-dir", dir, "-o", "json")
	if code != 0 || json.Unmarshal([]byte(out), &first) != nil || first.RunID == "" || len(first.Cancelled) != 0 {
		t.Fatalf("first run now: %d %q %q; want a Run that cancelled nothing", code, out, errOut)
	}
	code, out, errOut = ql(t, "triggers", "run", "demo/c", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "its overlap policy, cancel_previous, cancelled the unfinished run "+first.RunID+", and run ") ||
		!strings.Contains(out, "starts once it has stopped") {
		t.Fatalf("second run now: %d %q %q; want it to say it cancelled %s", code, out, errOut, first.RunID)
	}
	var third struct {
		RunID     string   `json:"runId"`
		Cancelled []string `json:"cancelled"`
	}
	second := strings.Fields(strings.TrimPrefix(out, "trigger demo/c: run "))[0]
	code, out, errOut = ql(t, "triggers", "run", "demo/c", "--data-dir", dir, "-o", "json")
	if code != 0 || json.Unmarshal([]byte(out), &third) != nil || len(third.Cancelled) != 1 || third.Cancelled[0] != second {
		t.Fatalf("third run now -o json: %d %q %q; want cancelled [%s]", code, out, errOut, second)
	}
}

// cancelPreviousDir is a data directory holding trigger demo/c, whose
// overlap policy is cancel_previous and whose cron never fires in a test.
func cancelPreviousDir(t *testing.T) string {
	t.Helper()
	dir := installedDir(t)
	file := writeFile(t, t.TempDir(), "c.yaml", "project: demo\ntasks:\n  - {name: t1, script: echo}\n"+
		"triggers:\n  - {name: c, task: t1, cron: '0 0 1 1 *', timezone: UTC, overlap: cancel_previous}\n")
	if code, out, errOut := ql(t, "apply", "-f", file, "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	return dir
}
