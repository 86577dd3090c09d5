package singlecli

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every list verb says the same of an empty list (cli.NoneLine): its
// header alone on standard output, for a script, and on standard error
// one line saying there is none and the command that makes one, in this
// binary's name and at this database; given filters, that they matched
// none. JSON is an empty array and nothing else.
func TestEveryEmptyListPrintsItsHeaderAndSaysOnStandardErrorHowToMakeOne(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	for _, c := range []struct {
		cmd  []string
		want string
	}{
		{[]string{"runs", "list"}, "no run yet: "},
		{[]string{"triggers", "list"}, "no trigger yet: "},
		{[]string{"notifications", "list"}, "no notification yet: "},
		{[]string{"secrets", "list"}, "no secret yet: "},
		{[]string{"tokens", "list"}, "no API token yet: "},
		{[]string{"users", "list"}, "no console user yet: "},
	} {
		// The list is the key named after the noun listed, and is [] even
		// where a listing has other keys beside it (secrets: the file).
		key := c.cmd[0]
		code, out, errOut := ql(t, append(c.cmd, "--data-dir", dir)...)
		if code != 0 || strings.Count(out, "\n") != 1 || !strings.HasPrefix(errOut, c.want) || strings.Count(errOut, "\n") != 1 ||
			!strings.Contains(errOut, "`ql-edge ") || !strings.Contains(errOut, " --data-dir "+dir+"`") {
			t.Errorf("%v on none: exit %d %q %q; want the header alone, and on stderr %q with a command at this database", c.cmd, code, out, errOut, c.want)
		}
		code, out, errOut = ql(t, append(c.cmd, "--data-dir", dir, "-o", "json")...)
		var page map[string]json.RawMessage
		if code != 0 || errOut != "" || json.Unmarshal([]byte(out), &page) != nil {
			t.Errorf("%v -o json on none: exit %d %q %q; want JSON alone", c.cmd, code, out, errOut)
		}
		if items := string(page[key]); items != "[]" {
			t.Errorf("%v -o json on none gives %s %s; want an empty array", c.cmd, key, items)
		}
	}
	code, out, errOut := ql(t, "runs", "list", "--state", "running", "--data-dir", dir)
	if code != 0 || strings.Count(out, "\n") != 1 || errOut != "no run matches the filters given\n" {
		t.Errorf("runs list --state running on none: exit %d %q %q; want the header alone, and that the filters matched none", code, out, errOut)
	}
}

// `ql triggers list --search` that finds nothing says, on the line that
// says so, what a search reads: names, titles and the task's script or
// command, not its env, where a user of the qinglong panel may look for a
// variable's value.
func TestATriggerSearchThatFindsNothingSaysItReadsNamesTitlesAndCommandsNotEnv(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	code, out, errOut := ql(t, "triggers", "list", "--search", "jd_fruit.js", "--data-dir", dir)
	if want := "no trigger matches the filters given; --search reads project, trigger and task names and titles and the task's script or command, not its env\n"; code != 0 || strings.Count(out, "\n") != 1 || errOut != want {
		t.Errorf("triggers list --search on none: exit %d %q %q; want the header alone, and %q", code, out, errOut, want)
	}
	if _, _, errOut := ql(t, "triggers", "list", "--project", "nothing-here", "--data-dir", dir); strings.Contains(errOut, "--search") {
		t.Errorf("triggers list without --search speaks of it: %q", errOut)
	}
}
