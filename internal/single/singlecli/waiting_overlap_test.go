package singlecli

import (
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A Run its trigger's overlap policy holds behind an earlier one says
// which policy holds it (its trigger's, queue_one, not both it might be)
// and names the command that reads the earlier Run as this invocation
// would paste it: with its --data-dir, or its --api-url, as every other
// hint does. Not parallel: it sets $QL_TOKEN.
func TestARunHeldByItsTriggersOverlapPolicyNamesThePolicyAndWhereToReadTheEarlierRun(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, strings.Replace(napFile, "    timezone: UTC\n", "    timezone: UTC\n    overlap: queue_one\n", 1))
	token := newToken(t, dir, "reader", "read")
	base := serveAPI(t, dir, "standalone", "--concurrency", "2", "--cadence", "250ms")
	first := queueRun(t, dir, "first")
	deadline := time.Now().Add(15 * time.Second)
	for runJSON(t, first, "--data-dir", dir).Run.State != run.Running {
		if time.Now().After(deadline) {
			t.Fatal("the first Run did not run within 15s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	second := queueRun(t, dir, "second")
	said := "its trigger's overlap policy, queue_one, holds it until the earlier run " + first + " has finished; `ql-edge runs show " + first
	code, out, errOut := ql(t, "runs", "show", second, "--data-dir", dir)
	if want := "\nwaiting    " + said + " --data-dir " + dir + "` says why that one has not\n"; code != 0 || !strings.Contains(out, want) {
		t.Fatalf("runs show: %d %q %q; want %q", code, out, errOut, want)
	}
	if w := runJSON(t, second, "--data-dir", dir).Waiting; w == nil || w.Reason != run.WaitPrevious || w.Overlap != "queue_one" || !strings.Contains(w.Message, said+" --data-dir "+dir+"`") {
		t.Fatalf("runs show -o json: waiting %+v; want %s by queue_one, its hint with --data-dir", w, run.WaitPrevious)
	}
	t.Setenv("QL_TOKEN", token)
	if w := runJSON(t, second, "--api-url", base).Waiting; w == nil || w.Overlap != "queue_one" || !strings.Contains(w.Message, said+" --api-url "+base+"`") {
		t.Fatalf("runs show --api-url: waiting %+v; want queue_one named, its hint with --api-url", w)
	}
	for _, id := range []string{second, first} {
		if code, out, errOut := ql(t, "runs", "cancel", id, "--data-dir", dir); code != 0 {
			t.Fatalf("cancel: %d %q %q", code, out, errOut)
		}
	}
}
