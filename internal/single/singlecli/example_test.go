package singlecli

import (
	"context"
	"database/sql"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/examples"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

type syncBuffer = syncbuf.Buffer

// The README's one command: serve --example applies the sample and, within
// seconds, a run is admitted, executed, and its log readable.
func TestServeExampleRunsTheSampleWithinSeconds(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- cli.Main(ctx, Options("ql-edge"), []string{"serve", "--example", "--data-dir", dir}, &out, &errOut)
	}()
	db := filepath.Join(dir, "qinglong.db")
	runID := waitForSucceededRun(t, db, exit, &errOut)
	cancel()
	if code := <-exit; code != 0 {
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "trigger hello-every-10s: created") {
		t.Fatalf("serve --example did not report the applied sample: %q", out.String())
	}
	code, logOut, logErr := ql(t, "runs", "logs", runID, "--data-dir", dir)
	if code != 0 || !strings.Contains(logOut, "hello from QingLong, run "+runID) {
		t.Fatalf("runs logs: %d %q %q", code, logOut, logErr)
	}
}

const succeededRunSQL = `SELECT id FROM runs WHERE state = 'succeeded' LIMIT 1`

func waitForSucceededRun(t *testing.T, dbPath string, exit <-chan int, errOut *syncBuffer) string {
	t.Helper()
	deadline := time.After(45 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var db *sql.DB
	for {
		select {
		case code := <-exit:
			t.Fatalf("serve exited early with %d: %s", code, errOut.String())
		case <-deadline:
			t.Fatalf("no run succeeded within 45s; serve said:\n%s", errOut.String())
		case <-tick.C:
		}
		if db == nil {
			var err error
			if db, err = sql.Open("sqlite", dbPath+"?_pragma=busy_timeout(5000)&_pragma=query_only(1)"); err != nil {
				t.Fatal(err)
			}
			defer db.Close()
		}
		var id string
		if err := db.QueryRow(succeededRunSQL).Scan(&id); err == nil {
			return id
		}
	}
}

// serve --example run again over a sample project the user changed (a
// trigger disabled) leaves the project as it is and says so, with the
// command that resets it: the quick start's command never undoes a
// user's change unasked.
func TestServeExampleAgainLeavesATriggerTheUserDisabledDisabled(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "sample.yaml", string(examples.Sample)), "--data-dir", dir); code != 0 {
		t.Fatalf("apply the sample: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := ql(t, "triggers", "disable", "examples/hello-every-10s", "--data-dir", dir); code != 0 {
		t.Fatalf("disable: %d %q %q", code, out, errOut)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- cli.Main(ctx, Options("ql-edge"), []string{"serve", "--example", "--data-dir", dir}, &out, &errOut)
	}()
	deadline := time.After(45 * time.Second)
	for !strings.Contains(errOut.String(), "code=serve.ready") {
		select {
		case code := <-exit:
			t.Fatalf("serve exited early with %d: %s", code, errOut.String())
		case <-deadline:
			t.Fatalf("serve not ready within 45s:\n%s", errOut.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	cancel()
	if code := <-exit; code != 0 {
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
	want := "project examples: already there, left as it is (a trigger you disabled stays disabled); `ql-edge apply -f examples/sample.yaml --data-dir " + dir + "` resets it to the sample\n"
	if out.String() != want {
		t.Errorf("serve --example over the changed sample said %q, want %q", out.String(), want)
	}
	code, shown, stderr := ql(t, "triggers", "list", "--data-dir", dir, "-o", "json")
	if code != 0 || !regexp.MustCompile(`"name": "hello-every-10s",\s+"revision": 2,\s+"enabled": false`).MatchString(shown) {
		t.Fatalf("after serve --example the trigger is not the disabled revision 2: %d %q %s", code, stderr, shown)
	}
}
