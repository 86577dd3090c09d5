package singlecli

import (
	"strings"
	"testing"
)

// An explicitly empty --request-id (an unset CI variable) is refused, exit
// 2, before anything is asked: a generated id in its place would make a
// retry of the same command line a second Run.
func TestAnEmptyRequestIDIsRefusedNotReplacedByAGeneratedOne(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	for _, args := range [][]string{
		{"triggers", "run", "api/yearly", "--request-id", "", "--data-dir", dir},
		{"runs", "rerun", "0190a4f2-0000-7000-8000-000000000000", "--request-id=", "--data-dir", dir},
	} {
		code, out, errOut := ql(t, args...)
		if code != 2 || !strings.Contains(errOut, "--request-id is empty (an unset variable?)") {
			t.Errorf("%v: %d %q %q; want exit 2 refusing the empty request id", args, code, out, errOut)
		}
	}
	if n := runsKeyed(t, dir, "%"); n != 0 {
		t.Fatalf("%d runs after refused requests, want none", n)
	}
}
