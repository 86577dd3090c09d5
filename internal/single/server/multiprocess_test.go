package server

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

const (
	runsSQL       = `SELECT count(*) FROM runs`
	duplicatesSQL = `SELECT count(*) FROM (SELECT 1 FROM runs GROUP BY trigger_id, scheduled_for_ms HAVING count(*) > 1)`
	attemptsSQL   = `SELECT count(*) FROM attempts`
	lostSQL       = `SELECT count(*) FROM runs WHERE state = 'lost'`
	runningSQL    = `SELECT count(*) FROM attempts WHERE state = 'running'`
	liveSQL       = `SELECT run_id, pid, id FROM attempts WHERE state = 'running'`
)

// A server and another process commit the scheduler's decisions for the
// same triggers to one file at the same time. Only one server may use a
// data directory (TestASecondServerOnADataDirectoryIsRefusedNamingItTheFirstServersPIDAndWhatToDo),
// but any process may write the file, so the state_version CAS and the
// unique idempotency key must let exactly one of them admit each
// occurrence, and the server must run each admitted Run once, whoever
// admitted it.
//
// Nothing the test waits for is left to timing: the other process starts
// first and admits alone until the server is up, which then runs those
// Runs; once both run, one page the other process takes is held until the
// server has admitted since (roundsOnly), so its commit races the
// server's. Around it both wake at every due instant and contend as the
// timing falls.
func TestAServerAndAnotherProcessSchedulingOneFileNeverDuplicateAnOccurrence(t *testing.T) {
	t.Parallel()
	dataDir := installedDir(t)
	publish(t, dataDir, 30, "true")
	db := observer(t, dataDir)
	hold := filepath.Join(t.TempDir(), "hold")
	b := startHelper(t, dataDir, 0, "QL_TEST_ROUNDS_ONLY=1", "QL_TEST_HOLD="+hold)
	waitFor(t, "the other process to admit runs alone", time.Minute, func() bool { return b.running(t).Admitted > 0 })
	alone := count(t, db, `SELECT max(rowid) FROM runs`)
	a := startHelper(t, dataDir, 4)
	// The server runs what another process admitted: every Run admitted
	// before it started. Each Run's attempt is written with its admission,
	// so only its state says it ran.
	waitFor(t, "the server to run every Run the other process admitted alone", time.Minute, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE rowid <= ? AND state = 'succeeded'`, alone) == alone
	})
	start := count(t, db, runsSQL)
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// 150 occurrences of the 30 triggers fall due over 5 s. Each is
	// admitted at its due instant by one process or the other, or, when
	// its commit waited out the busy timeout on the other's write lock, by
	// a round a cadence later. The held page is overtaken at the first due
	// instant after the hold.
	bound := 150/30*time.Second + sqlitestore.DefaultBusyTimeout + helperCadence
	waitFor(t, "both processes to schedule 150 more runs side by side, the held page racing the server", bound, func() bool {
		ra, rb := a.running(t), b.running(t)
		return count(t, db, runsSQL) >= start+150 && ra.Admitted > 0 && rb.Raced > 0
	})
	tb := b.stop(t)
	ta := a.stop(t)

	total := count(t, db, runsSQL)
	if dups := count(t, db, duplicatesSQL); dups != 0 {
		t.Fatalf("%d occurrences were admitted more than once", dups)
	}
	if ta.Admitted+tb.Admitted != total || ta.Failed+tb.Failed != 0 {
		t.Fatalf("the processes report %+v and %+v for %d runs; want the admissions to add up and nothing failed\nstderr A:\n%s\nstderr B:\n%s", ta, tb, total, a.stderr.String(), b.stderr.String())
	}
	// Both really scheduled, and really contended for the same rows.
	if ta.Admitted == 0 || tb.Admitted == 0 || ta.Raced+tb.Raced == 0 {
		t.Fatalf("the processes report %+v and %+v; the test needs both admitting and racing", ta, tb)
	}
	if n := count(t, db, attemptsSQL); n != total {
		t.Fatalf("%d attempts for %d runs", n, total)
	}
	if n := count(t, db, lostSQL); n != 0 {
		t.Fatalf("%d runs were declared lost although no server crashed", n)
	}
}

// A server killed with SIGKILL while commands run leaves starting/running
// attempts behind; the next start marks them lost with run.lost, runs
// nothing again, and (on Linux, where a reused pid can be told apart) ends
// the commands the dead server left running and removes their fresh
// working directories.
func TestKilledServerLeavesLostRunsThatAreNeverReRun(t *testing.T) {
	t.Parallel()
	dataDir := installedDir(t)
	trigs := publish(t, dataDir, 1, "sleep 300")
	db := observer(t, dataDir)
	h := startHelper(t, dataDir, 2)
	waitFor(t, "two commands running", time.Minute, func() bool { return count(t, db, runningSQL) == 2 })
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = h.cmd.Wait()
	if ws, ok := h.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the server was not killed by SIGKILL: %v", h.cmd.ProcessState)
	}
	// Rows left exactly as the killed server wrote them.
	rows, err := db.Query(liveSQL)
	if err != nil {
		t.Fatal(err)
	}
	var killed, workDirs []string
	var groups []int
	for rows.Next() {
		var runID, attemptID string
		var pid int
		if err := rows.Scan(&runID, &pid, &attemptID); err != nil {
			t.Fatal(err)
		}
		killed = append(killed, runID)
		groups = append(groups, pid)
		dirs, err := filepath.Glob(filepath.Join(os.TempDir(), "qinglong-"+attemptID+"-*"))
		if err != nil || len(dirs) != 1 {
			t.Fatalf("the working directories of attempt %s while its command runs: %v (%v); want its one fresh directory", attemptID, dirs, err)
		}
		workDirs = append(workDirs, dirs[0])
		// Whatever the restart leaves is cleaned up with the test.
		t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL) })
	}
	rows.Close()
	if len(killed) != 2 {
		t.Fatalf("%d attempts were running when the server died, want 2", len(killed))
	}
	for _, pid := range groups {
		if err := syscall.Kill(-pid, 0); err != nil {
			t.Fatalf("the command of process group %d did not outlive its server (%v); the orphan this test is about never existed", pid, err)
		}
	}
	disable(t, dataDir, trigs[0])

	srv, err := Start(t.Context(), Config{DataDir: dataDir, Cadence: 250 * time.Millisecond, StopTimeout: testStopTimeout, Concurrency: 1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := srv.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	for _, runID := range killed {
		d, err := srv.store.RunGet(t.Context(), runID)
		if err != nil {
			t.Fatal(err)
		}
		names := eventNames(d)
		if d.Run.State != run.Lost || len(d.Attempts) != 1 || d.Attempts[0].State != run.AttemptLost || names[len(names)-1] != run.EventLost {
			t.Fatalf("run %s after restart: %s, attempts %+v, events %v; want lost with run.lost and its single attempt", runID, d.Run.State, d.Attempts, names)
		}
		if started := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n != run.EventAttemptStarted }); len(started) != 1 {
			t.Fatalf("run %s was started again: %v", runID, names)
		}
	}
	if runtime.GOOS == "linux" {
		for _, pid := range groups {
			if running := groupRunning(pid); running {
				t.Fatalf("the orphaned command (process group %d) still runs after the restart", pid)
			}
		}
		// With its command ended, each fresh working directory the killed
		// server left is removed too: nothing else ever would.
		for _, d := range workDirs {
			if _, err := os.Stat(d); !os.IsNotExist(err) {
				t.Errorf("the working directory %s of an ended orphan is still there after the restart (%v)", d, err)
			}
		}
	}
}

// groupRunning reports whether a process of group pgid runs (zombies,
// which an orphan's new parent may never reap, run nothing).
func groupRunning(pgid int) bool {
	out, err := exec.Command("ps", "-e", "-o", "pgid=,stat=").Output()
	if err != nil {
		return syscall.Kill(-pgid, 0) == nil
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == strconv.Itoa(pgid) && !strings.HasPrefix(f[1], "Z") {
			return true
		}
	}
	return false
}

func eventNames(d run.Detail) []string {
	var out []string
	for _, e := range d.Events {
		out = append(out, e.Name)
	}
	return out
}

// disable publishes a disabled revision of tg, so a restarted server has
// nothing new to schedule.
func disable(t *testing.T, dataDir string, tg trigger.Revision) {
	t.Helper()
	b, err := OpenBackend(t.Context(), LayoutOf(dataDir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	spec := tg.Spec
	spec.Enabled = false
	tk, err := b.Store.TaskByName(t.Context(), tg.ProjectID, "job")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Catalog.PublishTrigger(t.Context(), tg.ProjectID, tg.TriggerID, tk, tg.Revision, ids.New(), spec); err != nil {
		t.Fatal(err)
	}
}
