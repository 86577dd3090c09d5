package singlecli

import (
	"strings"
	"testing"
)

// triggers disable and enable take several names and do each on its own,
// as the console's batch does: a name no trigger has is refused on
// stderr with its name, the others are still done, each saying so, and
// the command exits as the refused one alone would (1); --if-match takes
// one trigger only.
func TestTriggersDisableOfSeveralNamesDoesEachAndRefusesAnUnknownOneByName(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "m.yaml", projectFile("demo", "a", "b")), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	code, out, errOut := ql(t, "triggers", "disable", "a", "nope", "demo/b", "--data-dir", dir)
	if code != 1 || !strings.Contains(out, "trigger a: disabled as revision") || !strings.Contains(out, "trigger demo/b: disabled as revision") ||
		!strings.Contains(errOut, "ql-edge: trigger nope: not disabled: ") || !strings.Contains(errOut, "1 of the 3 triggers given was not disabled") {
		t.Fatalf("disable a nope demo/b: exit %d %q %q; want exit 1, a and b disabled, nope refused by name", code, out, errOut)
	}
	for _, name := range []string{"a", "b"} {
		if d := showJSON(t, dir, name); d.Trigger.Enabled {
			t.Errorf("trigger %s after the disable of several: still enabled", name)
		}
	}
	if code, out, errOut := ql(t, "triggers", "enable", "a", "b", "--data-dir", dir); code != 0 || strings.Count(out, ": enabled as revision") != 2 {
		t.Fatalf("enable a b: exit %d %q %q; want both enabled", code, out, errOut)
	}
	if code, _, errOut := ql(t, "triggers", "disable", "a", "b", "--if-match", "3", "--data-dir", dir); code != 2 || !strings.Contains(errOut, "--if-match takes one trigger, 2 given") {
		t.Fatalf("disable a b --if-match: exit %d %q; want a usage error", code, errOut)
	}
}
