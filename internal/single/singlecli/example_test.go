package singlecli

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
