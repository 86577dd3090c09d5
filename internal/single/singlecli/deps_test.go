package singlecli

import (
	"strings"
	"testing"
)

// `deps list` reads the data directory, which lists nothing before the
// first add; `deps add` and `deps rm` without --api-url are refused
// (exit 2) saying the server installs, with its installers, its PATH and
// its scripts folder, and nothing is declared.
func TestDepsAddWithoutAnAPIURLSaysTheServerInstallsAndListReadsTheDataDirectory(t *testing.T) {
	dir := installedDir(t)
	for _, args := range [][]string{{"deps", "add", "node", "axios"}, {"deps", "rm", "node", "axios"}} {
		code, _, errOut := ql(t, append(args, "--data-dir", dir)...)
		if code != 2 || !strings.Contains(errOut, "installs with the server's installers") || !strings.Contains(errOut, "--api-url") {
			t.Errorf("%v on the data directory: exit %d, %q; want 2 asking for --api-url", args, code, errOut)
		}
	}
	code, out, errOut := ql(t, "deps", "list", "--data-dir", dir, "-o", "json")
	if code != 0 || strings.Join(strings.Fields(out), "") != `{"dependencies":[]}` {
		t.Errorf("deps list: exit %d, %q %q; want an empty list", code, out, errOut)
	}
}
