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
