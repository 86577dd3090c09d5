package singlecli

import (
	"strings"
	"testing"
)

// A run now of a disabled trigger says two ways to enable it, each a
// command to paste: the apply it names takes the file with -f FILE, so
// pasted with the file written there it enables the trigger, where a bare
// `ql apply` was refused for lack of a file.
func TestTheApplyCommandADisabledTriggersRefusalNamesEnablesItWhenPasted(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	defs := "project: demo\ntasks:\n  - {name: hello, script: echo hi}\ntriggers:\n  - {name: tick, task: hello, cron: '0 0 1 1 *', timezone: UTC, enabled: ENABLED}\n"
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, t.TempDir(), "off.yaml", strings.Replace(defs, "ENABLED", "false", 1)), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	code, _, errOut := ql(t, "triggers", "run", "demo/tick", "--data-dir", dir)
	_, command, found := strings.Cut(errOut, "in its definitions file and `")
	command, _, _ = strings.Cut(command, "`")
	if code != 4 || !found {
		t.Fatalf("run now of a disabled trigger: %d %q; want 4 and the apply command to paste", code, errOut)
	}
	on := writeFile(t, t.TempDir(), "on.yaml", strings.Replace(defs, "ENABLED", "true", 1))
	args := strings.Fields(strings.Replace(command, "FILE", on, 1))[1:]
	if code, out, errOut := ql(t, args...); code != 0 || !strings.Contains(out, "trigger tick: updated") {
		t.Fatalf("pasted %q with FILE %s: %d %q %q; want the trigger updated", command, on, code, out, errOut)
	}
	if code, out, errOut := ql(t, "triggers", "run", "demo/tick", "--data-dir", dir); code != 0 {
		t.Errorf("run now after the pasted apply: %d %q %q; want it run", code, out, errOut)
	}
}
