package singlecli

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/view"
)

const napFile = `project: slow
tasks:
  - name: nap
    script: sleep 30
triggers:
  - name: yearly
    task: nap
    cron: "0 0 1 1 *"
    timezone: UTC
`

// queueRun runs the trigger slow/yearly now on dir and returns its Run.
func queueRun(t *testing.T, dir, request string) string {
	t.Helper()
	code, out, errOut := ql(t, "triggers", "run", "slow/yearly", "--request-id", request, "--data-dir", dir)
	id := regexp.MustCompile(`run (\S+) queued`).FindStringSubmatch(out)
	if code != 0 || id == nil {
		t.Fatalf("run now: %d %q %q", code, out, errOut)
	}
	return id[1]
}

// runJSON is `ql-edge runs show id -o json` with where (--data-dir DIR or
// --api-url URL).
func runJSON(t *testing.T, id string, where ...string) view.RunDetail {
	t.Helper()
	code, out, errOut := ql(t, append([]string{"runs", "show", id, "-o", "json"}, where...)...)
	var d view.RunDetail
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil {
		t.Fatalf("runs show -o json: %d %q %q", code, out, errOut)
	}
	return d
}

// A queued Run read from a data directory no server serves says that no
// server runs there and how to start one, in ql-edge's own words, on the
// waiting line, in -o json and while `runs logs -f` follows it (once, with
// no second note saying the same); nothing it says names the cluster.
func TestAQueuedRunReadWithNoServerSaysNoServeRunsOnTheDataDirectory(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, napFile)
	id := queueRun(t, dir, "idle")
	want := "no `ql-edge serve` runs on this data directory (" + dir + "), so nothing starts it; start one with `ql-edge serve --data-dir " + dir + "`"
	code, out, errOut := ql(t, "runs", "show", id, "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "\nwaiting    "+want+"\n") {
		t.Fatalf("runs show: %d %q %q; want the waiting line %q", code, out, errOut, want)
	}
	d := runJSON(t, id, "--data-dir", dir)
	if w := d.Waiting; w == nil || w.Reason != run.WaitNoServer || w.DataDir != dir || w.Message != want {
		t.Fatalf("runs show -o json: waiting %+v; want %s in %s saying %q", w, run.WaitNoServer, dir, want)
	}
	// Interrupted as a user stops it, once it has had time to say why the
	// Run waits and to look again.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(2*time.Second, cancel)
	var logOut, logErr bytes.Buffer
	if code := cli.Main(ctx, Options("ql-edge"), []string{"runs", "logs", id, "-f", "--data-dir", dir}, &logOut, &logErr); code != cli.ExitInterrupted {
		t.Fatalf("runs logs -f: exit %d %q %q; want it following until interrupted", code, logOut.String(), logErr.String())
	}
	said := logErr.String()
	if strings.Count(said, "(run "+id+" waits: "+want+")") != 1 || strings.Contains(said, "note: no server") {
		t.Fatalf("runs logs -f said %q; want %q once and no second note of it", said, want)
	}
	for _, printed := range []string{out, said} {
		for _, word := range []string{"cluster", "worker", "replica"} {
			if strings.Contains(printed, word) {
				t.Errorf("ql-edge printed %q, which mentions %q", printed, word)
			}
		}
	}
}

// A queued Run read beside a running server never says that no server
// runs: read from the data directory, which cannot see the server's
// --concurrency, it says how many commands run now and what bounds them;
// read through the server's API, it says the server runs as many as its
// --concurrency allows. Not parallel: it sets $QL_TOKEN.
func TestAQueuedRunReadBesideARunningServerNeverSaysNoServer(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, napFile)
	token := newToken(t, dir, "reader", "read")
	base := serveAPI(t, dir, "standalone", "--concurrency", "1", "--cadence", "250ms")
	first := queueRun(t, dir, "first")
	deadline := time.Now().Add(15 * time.Second)
	for runJSON(t, first, "--data-dir", dir).Run.State != run.Running {
		if time.Now().After(deadline) {
			t.Fatal("the first Run did not run within 15s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	second := queueRun(t, dir, "second")
	code, out, errOut := ql(t, "runs", "show", second, "--data-dir", dir)
	want := "\nwaiting    the server runs 1 command now; its --concurrency (`ql-edge serve --concurrency N`) bounds how many run at once: at that bound, as one finishes it starts the Run queued first, this one in its turn; under it, it starts this one in a moment\n"
	if code != 0 || !strings.Contains(out, want) || strings.Contains(out, "no `ql-edge serve` runs") {
		t.Fatalf("runs show beside the server: %d %q %q; want %q and never that no server runs", code, out, errOut, want)
	}
	t.Setenv("QL_TOKEN", token)
	d := runJSON(t, second, "--api-url", base)
	if w := d.Waiting; w == nil || w.Reason != run.WaitServerBusy || w.Running != 1 || w.Concurrency != 1 ||
		!strings.Contains(w.Message, "the server already runs 1 command, as many as its --concurrency (1) allows") {
		t.Fatalf("runs show --api-url: waiting %+v; want %s, 1 of 1", w, run.WaitServerBusy)
	}
	for _, id := range []string{second, first} {
		if code, out, errOut := ql(t, "runs", "cancel", id, "--data-dir", dir); code != 0 {
			t.Fatalf("cancel: %d %q %q", code, out, errOut)
		}
	}
}
