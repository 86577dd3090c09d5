package singlecli

import (
	"encoding/json"
	"strings"
	"testing"
)

// `ql runs show` of a Run that was re-run names its re-runs, newest first,
// on a "re-run as" line and in -o json (rerunAs), so a user looking at a
// lost or failed Run sees it was re-run already; a Run never re-run has
// neither.
func TestRunsShowNamesTheRunsThatReRunIt(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	file := writeFile(t, t.TempDir(), "c.yaml", "project: demo\ntasks:\n  - {name: t1, script: echo}\n"+
		"triggers:\n  - {name: c, task: t1, cron: '0 0 1 1 *', timezone: UTC}\n")
	if code, out, errOut := ql(t, "apply", "-f", file, "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	var orig struct {
		RunID string `json:"runId"`
	}
	code, out, errOut := ql(t, "triggers", "run", "demo/c", "--data-dir", dir, "-o", "json")
	if code != 0 || json.Unmarshal([]byte(out), &orig) != nil {
		t.Fatalf("run now: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := ql(t, "runs", "cancel", orig.RunID, "--data-dir", dir); code != 0 {
		t.Fatalf("cancel: %d %q %q", code, out, errOut)
	}
	if code, out, _ := ql(t, "runs", "show", orig.RunID, "--data-dir", dir); code != 0 || strings.Contains(out, "re-run as") {
		t.Fatalf("runs show of a Run never re-run: %d %q; want no re-run as line", code, out)
	}
	var made []string
	for range 2 {
		var a struct {
			RunID string `json:"runId"`
		}
		code, out, errOut := ql(t, "runs", "rerun", orig.RunID, "--data-dir", dir, "-o", "json")
		if code != 0 || json.Unmarshal([]byte(out), &a) != nil || a.RunID == "" {
			t.Fatalf("rerun: %d %q %q", code, out, errOut)
		}
		if code, out, errOut := ql(t, "runs", "cancel", a.RunID, "--data-dir", dir); code != 0 {
			t.Fatalf("cancel the re-run: %d %q %q", code, out, errOut)
		}
		made = append(made, a.RunID)
	}
	code, out, errOut = ql(t, "runs", "show", orig.RunID, "--data-dir", dir)
	if want := "re-run as  " + made[1] + ", " + made[0] + "\n"; code != 0 || !strings.Contains(out, want) {
		t.Fatalf("runs show: %d %q %q; want the line %q", code, out, errOut, want)
	}
	var d struct {
		RerunAs []string `json:"rerunAs"`
	}
	code, out, errOut = ql(t, "runs", "show", orig.RunID, "--data-dir", dir, "-o", "json")
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil || len(d.RerunAs) != 2 || d.RerunAs[0] != made[1] || d.RerunAs[1] != made[0] {
		t.Fatalf("runs show -o json: %d %q %q; want rerunAs [%s %s]", code, out, errOut, made[1], made[0])
	}
}
