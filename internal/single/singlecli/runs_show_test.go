package singlecli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/view"
)

// `runs show` names the task the Run ran and the trigger that admitted it,
// beside their ids, in text and in -o json: an id alone tells a person
// nothing of what ran.
func TestRunsShowNamesTheTaskAndTriggerOfTheRun(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "m.yaml", projectFile("demo", "tick")), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	code, out, errOut := ql(t, "triggers", "run", "demo/tick", "--data-dir", dir)
	id := regexp.MustCompile(`run (\S+) queued`).FindStringSubmatch(out)
	if code != 0 || id == nil {
		t.Fatalf("run now: %d %q %q", code, out, errOut)
	}
	code, out, errOut = ql(t, "runs", "show", id[1], "--data-dir", dir)
	if code != 0 || !regexp.MustCompile(`(?m)^task +job \([0-9a-f-]{36}\) revision 1$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^trigger +tick \([0-9a-f-]{36}\) revision 1$`).MatchString(out) {
		t.Fatalf("runs show: %d %q %q; want the task job and the trigger tick named", code, out, errOut)
	}
	code, out, errOut = ql(t, "runs", "show", id[1], "-o", "json", "--data-dir", dir)
	var d view.RunDetail
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil || d.Run.TaskName != "job" || d.Run.TriggerName != "tick" || !strings.Contains(out, `"taskName": "job"`) {
		t.Fatalf("runs show -o json: %d %q %q; want taskName job and triggerName tick", code, out, errOut)
	}
}

// `runs show` of a re-run says its due time is when the re-run was
// requested, in text, and gives its origin in -o json: a re-run keeps the
// original's scheduled time, and the gap since then was shown as jitter.
func TestRunsShowSaysARerunIsDueWhenItWasRequestedNotJittered(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, manualFile)
	if code, out, errOut := ql(t, "triggers", "backfill", "hourly", "--from", "2020-01-01T00:00:00Z", "--to", "2020-01-01T00:00:00Z", "--data-dir", dir); code != 0 {
		t.Fatalf("backfill: %d %q %q", code, out, errOut)
	}
	var orig string
	if err := readOnlyDB(t, dir).QueryRow(`SELECT id FROM runs`).Scan(&orig); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := ql(t, "runs", "cancel", orig, "--data-dir", dir); code != 0 {
		t.Fatalf("cancel: %d %q %q", code, out, errOut)
	}
	code, out, errOut := ql(t, "runs", "rerun", orig, "-o", "json", "--data-dir", dir)
	var made struct {
		RunID string `json:"runId"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &made) != nil || made.RunID == "" {
		t.Fatalf("rerun: %d %q %q", code, out, errOut)
	}
	code, out, errOut = ql(t, "runs", "show", made.RunID, "--data-dir", dir)
	if code != 0 || strings.Contains(out, "jitter") ||
		!regexp.MustCompile(`(?m)^due +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \(when the re-run was requested; scheduled is the original's\)$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^scheduled +2020-01-01T00:00:00\.000Z$`).MatchString(out) {
		t.Fatalf("runs show of the re-run: %d %q %q; want it due when requested, scheduled at the original's time, and no jitter", code, out, errOut)
	}
	code, out, errOut = ql(t, "runs", "show", made.RunID, "-o", "json", "--data-dir", dir)
	var d view.RunDetail
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil || d.Run.Origin != "rerun" || d.Run.RerunOf != orig || d.Run.DueAtMs < d.Run.CreatedAtMs-1000 {
		t.Fatalf("runs show -o json of the re-run: %d %q %q; want origin rerun, rerunOf the original and dueAtMs its request's time", code, out, errOut)
	}
}
