package singlecli

import (
	"strings"
	"testing"
)

// A re-run of a Run whose trigger is disabled is refused (exit 4) saying
// how to enable the trigger as run now does: by project and name, with
// the invocation's --data-dir, or over --api-url the server's address, so
// the command pasted as it is enables it. Not parallel: it sets $QL_TOKEN.
func TestARerunOfADisabledTriggersRunNamesItByProjectAndNameInTheEnableHint(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	operator := newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone")
	db := readOnlyDB(t, dir)
	t.Setenv("QL_DATA_DIR", "")
	queued := queuedRun.FindStringSubmatch(onDB(t, dir, "triggers", "run", "yearly").out)
	if queued == nil {
		t.Fatal("triggers run yearly queued no Run")
	}
	waitRunsEnded(t, db)
	if o := onDB(t, dir, "triggers", "disable", "api/yearly"); o.code != 0 {
		t.Fatalf("disable: exit %d %q %q", o.code, o.out, o.err)
	}

	local := onDB(t, dir, "runs", "rerun", queued[1])
	want := "is disabled: nothing of it runs, run now and backfill included; enable it with `ql-edge triggers enable api/yearly --data-dir " + dir + "`"
	if local.code != 4 || !strings.HasPrefix(local.err, "ql-edge: trigger yearly (") || !strings.Contains(local.err, want) {
		t.Errorf("rerun on the database: exit %d %q; want 4, the trigger named and %q", local.code, local.err, want)
	}
	t.Setenv("QL_TOKEN", operator)
	remote := overAPI(t, base, "runs", "rerun", queued[1])
	want = "enable it with `ql-edge triggers enable api/yearly --api-url " + base + "`"
	if remote.code != 4 || !strings.HasPrefix(remote.err, "ql-edge: server: trigger yearly (") || !strings.Contains(remote.err, want) {
		t.Errorf("rerun over the API: exit %d %q; want 4, the server's refusal and %q", remote.code, remote.err, want)
	}
	sameError(t, "rerun", remote, local, nil)
}
