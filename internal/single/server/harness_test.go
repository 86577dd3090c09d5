package server

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// everySecond fires at every second boundary.
var everySecond = trigger.Cron{Expression: "* * * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}

// publish writes n triggers running script every second into dataDir's
// database and returns their trigger revisions.
func publish(t testing.TB, dataDir string, n int, script string) []trigger.Revision {
	t.Helper()
	b, err := OpenBackend(t.Context(), LayoutOf(dataDir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p := project.Project{ID: ids.New(), Name: "load", Status: project.Active}
	if _, err := b.Store.ProjectSave(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	tk, _, err := b.Catalog.PublishTask(t.Context(), p.ID, ids.New(), 0, ids.New(), task.Spec{Name: "job", Enabled: true,
		Command: task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: script, TimeoutMs: time.Hour.Milliseconds()}})
	if err != nil {
		t.Fatal(err)
	}
	var out []trigger.Revision
	for i := range n {
		tg, _, err := b.Catalog.PublishTrigger(t.Context(), p.ID, ids.New(), tk, 0, ids.New(), trigger.Spec{Name: fmt.Sprintf("t%03d", i), Enabled: true, Cron: everySecond})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tg)
	}
	return out
}

// helper is one serve process started from the test binary.
type helper struct {
	cmd        *exec.Cmd
	stdout     bytes.Buffer
	stderr     bytes.Buffer
	totalsFile string
}

// startHelper starts a serve process on dataDir; env adds to its
// environment (QL_TEST_ROUNDS_ONLY=1: the scheduler's rounds only, see
// roundsOnly).
func startHelper(t *testing.T, dataDir string, concurrency int, env ...string) *helper {
	t.Helper()
	h := &helper{cmd: exec.Command(os.Args[0], "-test.run=^$"), totalsFile: filepath.Join(t.TempDir(), "totals.json")}
	h.cmd.Env = append(os.Environ(), helperEnv+"=1", "QL_DATA_DIR="+dataDir, "QL_TEST_CONCURRENCY="+strconv.Itoa(concurrency),
		"QL_TEST_TOTALS="+h.totalsFile)
	h.cmd.Env = append(h.cmd.Env, env...)
	h.cmd.Stdout, h.cmd.Stderr = &h.stdout, &h.stderr
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if h.cmd.ProcessState == nil {
			_ = h.cmd.Process.Kill()
			_ = h.cmd.Wait()
		}
	})
	return h
}

// running reads the totals the helper last wrote while serving (zero before
// its first round).
func (h *helper) running(t *testing.T) helperTotals {
	t.Helper()
	var totals helperTotals
	b, err := os.ReadFile(h.totalsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return totals
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &totals); err != nil {
		t.Fatalf("helper totals %q: %v", b, err)
	}
	return totals
}

// stop sends SIGTERM and returns the helper's totals.
func (h *helper) stop(t *testing.T) helperTotals {
	t.Helper()
	if err := h.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Wait(); err != nil {
		t.Fatalf("helper exited with %v; stderr:\n%s", err, h.stderr.String())
	}
	var totals helperTotals
	if err := json.Unmarshal(h.stdout.Bytes(), &totals); err != nil {
		t.Fatalf("helper totals %q: %v", h.stdout.String(), err)
	}
	return totals
}

// observer reads the database file directly, outside every contract.
func observer(t *testing.T, dataDir string) *sql.DB { return observerTB(t, dataDir) }

func observerTB(t testing.TB, dataDir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", LayoutOf(dataDir).DB+"?_pragma=busy_timeout(10000)&_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func count(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitFor waits, bounded, until cond holds; it polls the database because
// the processes it watches share nothing else with the test.
func waitFor(t testing.TB, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.After(limit)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline:
			t.Fatalf("timed out after %s waiting for %s", limit, what)
		case <-tick.C:
		}
	}
}
