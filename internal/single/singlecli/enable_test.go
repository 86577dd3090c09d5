package singlecli

import (
	"strings"
	"testing"
	"time"
)

// triggers disable and enable publish the trigger's revision again with
// only enabled flipped, each saying what it did; doing it twice changes
// nothing; the occurrences that fell due while disabled are recorded in
// the ledger as disabled and none runs late.
func TestTriggersDisableAndEnablePublishAFlippedRevisionAndRecordWhatFellDue(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "m.yaml", projectFile("demo", "tick")), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	code, out, errOut := ql(t, "triggers", "disable", "demo/tick", "--data-dir", dir)
	if code != 0 || !strings.HasPrefix(out, "trigger demo/tick: disabled as revision 2 at ") || !strings.Contains(out, "enable it with `ql-edge triggers enable demo/tick --data-dir "+dir+"`") {
		t.Fatalf("disable: %d %q %q; want the hint a command as printed", code, out, errOut)
	}
	if code, out, _ := ql(t, "triggers", "disable", "tick", "--data-dir", dir); code != 0 || !strings.Contains(out, "already disabled (revision 2); nothing changed") {
		t.Fatalf("disable again: %d %q; want a no-op", code, out)
	}
	if d := showJSON(t, dir, "tick"); d.Trigger.Enabled || d.Trigger.Revision != 2 {
		t.Fatalf("show after disable: %+v", d.Trigger)
	}
	time.Sleep(1100 * time.Millisecond)
	if code, out, errOut := ql(t, "triggers", "enable", "tick", "--data-dir", dir); code != 0 || !strings.Contains(out, "enabled as revision 3 at ") {
		t.Fatalf("enable: %d %q %q", code, out, errOut)
	}
	d := showJSON(t, dir, "tick")
	var disabled int64
	for _, e := range d.Ledger {
		if e.Reason == "disabled" && e.TriggerRevision == 2 {
			disabled += e.Count
		}
	}
	if !d.Trigger.Enabled || d.Trigger.Revision != 3 || disabled < 1 || len(d.Runs) != 0 {
		t.Fatalf("show after enable: %+v with %d disabled occurrences; want revision 3 enabled, at least one recorded as disabled, no run", d, disabled)
	}
	if code, _, errOut := ql(t, "triggers", "enable", "nope", "--data-dir", dir); code != 1 || !strings.Contains(errOut, `no trigger named "nope"`) {
		t.Fatalf("enable an unknown trigger: %d %q", code, errOut)
	}
}
