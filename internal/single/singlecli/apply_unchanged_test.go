package singlecli

import (
	"fmt"
	"strings"
	"testing"
)

// manyTriggers is a definitions file of one task and n triggers, the
// first of them running cron.
func manyTriggers(n int, cron string) string {
	var b strings.Builder
	b.WriteString("project: big\ntasks:\n  - name: job\n    script: \"true\"\ntriggers:\n")
	for i := range n {
		c := "0 0 1 1 *"
		if i == 0 {
			c = cron
		}
		fmt.Fprintf(&b, "  - name: t%04d\n    task: job\n    cron: %q\n    timezone: UTC\n", i, c)
	}
	return b.String()
}

// An apply that changes one trigger of a large file prints that trigger's
// line and one line counting the objects it left unchanged, with a comma
// between thousands, where it printed a line for each; --verbose prints
// every object's line, a dry run counts them the same way.
func TestApplyCountsTheUnchangedObjectsOnOneLine(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, manyTriggers(1001, "0 0 1 1 *"))
	changed := writeFile(t, dir, "changed.yaml", manyTriggers(1001, "0 0 2 1 *"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--dry-run"}, "trigger t0000: would update cron.expression (revision 2)\n1 project, 1 task and 1,000 triggers unchanged\n"},
		{nil, "trigger t0000: updated (revision 2)\n1 project, 1 task and 1,000 triggers unchanged\n"},
	} {
		code, out, errOut := ql(t, append([]string{"apply", "-f", changed, "--data-dir", dir}, c.args...)...)
		if code != 0 || !strings.HasPrefix(out, c.want) {
			t.Fatalf("apply %v: exit %d %q\nstdout %q\nwant it to start %q", c.args, code, errOut, out[:min(len(out), 300)], c.want)
		}
	}
	// Applied again: now every object is unchanged.
	code, out, errOut := ql(t, "apply", "-f", changed, "--data-dir", dir, "--verbose")
	if code != 0 || strings.Count(out, ": unchanged") != 1003 || strings.Contains(out, "triggers unchanged") {
		t.Fatalf("apply --verbose: exit %d %q; want a line for each of the 1,003 objects and no count, got %d", code, errOut, strings.Count(out, ": unchanged"))
	}
}
