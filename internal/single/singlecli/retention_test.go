package singlecli

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const quickFile = `project: demo
tasks:
  - name: quick
    script: echo hello
triggers:
  - name: every-second
    task: quick
    cron: "* * * * * *"
    timezone: UTC
`

// `ql retention run --dry-run` counts and deletes nothing; `ql retention
// run` deletes the same and prints each batch and a summary.
func TestRetentionRunDeletesWhatItsDryRunCounted(t *testing.T) {
	t.Parallel()
	dir, db := serveDefs(t, quickFile)
	finished := func() int {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM runs WHERE finished_at_ms < ?`, time.Now().Add(-30*24*time.Hour).UnixMilli()).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM runs WHERE state = 'succeeded'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no two runs finished within 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	rw, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	res, err := rw.Exec(`UPDATE runs SET finished_at_ms = finished_at_ms - ? WHERE state = 'succeeded'`, (40 * 24 * time.Hour).Milliseconds())
	if err != nil {
		t.Fatal(err)
	}
	aged, _ := res.RowsAffected()
	code, out, errOut := ql(t, "retention", "run", "--dry-run", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("would delete runs: %d runs, %d attempts", aged, aged)) || !strings.Contains(out, "policy: runs 30d, logs 7d, log bytes 1GiB") {
		t.Fatalf("dry run: exit %d, %q %q; want %d runs counted", code, out, errOut, aged)
	}
	if n := finished(); n != int(aged) {
		t.Fatalf("after the dry run %d old runs are left, want all %d", n, aged)
	}
	code, out, errOut = ql(t, "retention", "run", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "deleted runs: ") || !strings.Contains(out, "done in ") ||
		!strings.Contains(out, fmt.Sprintf("runs: %d runs, %d attempts, ", aged, aged)) {
		t.Fatalf("run: exit %d, %q %q; want %d runs deleted with progress", code, out, errOut, aged)
	}
	if n := finished(); n != 0 {
		t.Fatalf("after the pass %d old runs are left", n)
	}
	if code, _, errOut := ql(t, "retention", "run", "--data-dir", dir, "--retention-runs", "soon"); code != 2 || !strings.Contains(errOut, "--retention-runs") {
		t.Fatalf("a bad setting: exit %d, %q; want 2 naming it", code, errOut)
	}
}

// `ql runs logs` tells a log that retention removed from one that was
// never written: the first says it was removed, the second that the
// attempt has not started.
func TestRunsLogsTellsARemovedLogFromARunNotStartedYet(t *testing.T) {
	t.Parallel()
	dir, db := serveDefs(t, quickFile)
	done := runIn(t, db, "succeeded")
	rw, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	ago := (10 * 24 * time.Hour).Milliseconds()
	if _, err := rw.Exec(`UPDATE runs SET finished_at_ms = finished_at_ms - ?1 WHERE id = ?2;
		UPDATE attempts SET finished_at_ms = finished_at_ms - ?1 WHERE run_id = ?2`, ago, done); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := ql(t, "retention", "run", "--data-dir", dir, "--retention-runs", "off", "--retention-log-bytes", "off"); code != 0 || !strings.Contains(out, "logs: 1 logs") {
		t.Fatalf("retention: exit %d, %q %q; want the aged log removed", code, out, errOut)
	}
	code, out, errOut := ql(t, "runs", "logs", done, "--data-dir", dir)
	if code == 0 || out != "" || !strings.Contains(errOut, "was removed by log retention") || strings.Contains(errOut, "not started") {
		t.Fatalf("logs of a removed log: exit %d, %q %q; want it said removed", code, out, errOut)
	}

	// One command at a time, each sleeping 30 s: once one runs, a queued
	// Run waits behind it (read before, a queued Run may be the one about
	// to start).
	slowDir, slowDB := serveSlow(t, "30")
	runIn(t, slowDB, "running")
	queued := runIn(t, slowDB, "queued")
	code, out, errOut = ql(t, "runs", "logs", queued, "--data-dir", slowDir)
	if code == 0 || out != "" || !strings.Contains(errOut, "has not started yet") || strings.Contains(errOut, "removed") {
		t.Fatalf("logs of a queued run: exit %d, %q %q; want it said not started", code, out, errOut)
	}
}
