package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// movedServer is a server started on a data directory whose database path
// a test moves, deletes or replaces, with what the test reads it by.
type movedServer struct {
	srv  *Server
	db   string
	log  *lockedBuffer
	file *sql.DB
}

// startMovable applies a trigger on cron running `true` and starts a
// server of profile p with the given cadence on a new data directory, its
// API on a free port and its log kept. file reads the server's own file
// wherever it is moved: one connection, opened before any move, keeps the
// descriptors of the file and of its WAL (a connection opened at the moved
// path would find the file without its WAL).
func startMovable(t *testing.T, p Profile, cadence time.Duration, cron trigger.Cron) *movedServer {
	t.Helper()
	dir := installedDir(t)
	applyElsewhere(t, dir, cron, "true")
	m := &movedServer{db: LayoutOf(dir).DB, log: &lockedBuffer{}}
	srv, err := Start(t.Context(), Config{DataDir: dir, Profile: p, Cadence: cadence, StopTimeout: testStopTimeout, Concurrency: 1,
		HTTPAddr: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(m.log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	m.srv = srv
	m.file = observer(t, dir)
	m.file.SetMaxOpenConns(1)
	m.file.SetMaxIdleConns(1)
	m.file.SetConnMaxLifetime(0)
	m.file.SetConnMaxIdleTime(0)
	count(t, m.file, runsSQL)
	return m
}

// readyz is the server's /readyz status code and reason.
func (m *movedServer) readyz(t *testing.T) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + m.srv.Addr() + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Reason string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body.Reason
}

// waitMoved waits until /readyz says the database moved, then checks the
// metrics state and that the error was logged once, finding what it says.
func (m *movedServer) waitMoved(t *testing.T, found string) {
	t.Helper()
	waitFor(t, "/readyz to say database_moved", 10*time.Second, func() bool {
		code, reason := m.readyz(t)
		return code == http.StatusServiceUnavailable && reason == metrics.StateDatabaseMoved
	})
	if got := m.srv.readinessState(); got != metrics.StateDatabaseMoved {
		t.Errorf("readiness state %q while the database is moved, want %q", got, metrics.StateDatabaseMoved)
	}
	if found == "missing" {
		m.noFileAtThePath(t)
	}
	log := m.log.String()
	if n := strings.Count(log, "code="+CodeDatabaseMoved); n != 1 {
		t.Errorf("%d %s lines, want 1:\n%s", n, CodeDatabaseMoved, log)
	}
	if !strings.Contains(log, "level=ERROR") || !strings.Contains(log, "found="+found) || !strings.Contains(log, "put the file back at "+m.db) {
		t.Errorf("the %s line does not say it found %s and what to do:\n%s", CodeDatabaseMoved, found, log)
	}
}

// noFileAtThePath checks that the server, its path emptied, created no
// file there: a connection its pools open lazily must not make an empty
// database that a CLI command or the next start would take for its own.
func (m *movedServer) noFileAtThePath(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(m.db); !os.IsNotExist(err) {
		t.Errorf("stat %s while moved: %v; want no file there", m.db, err)
	}
}

// nothingAdmittedFor checks, over d (a due every-second trigger falls due
// in it), that the server admits no Run into its own file and creates none
// at the path.
func (m *movedServer) nothingAdmittedFor(t *testing.T, d time.Duration) {
	t.Helper()
	runs, attempts := count(t, m.file, runsSQL), count(t, m.file, `SELECT count(*) FROM attempts`)
	// Nothing happens to await: the guarantee is that the due instants
	// within d pass without a Run.
	time.Sleep(d)
	if got := count(t, m.file, runsSQL); got != runs {
		t.Errorf("%d Runs admitted into the moved file in %s; want none while the path names another file", got-runs, d)
	}
	if got := count(t, m.file, `SELECT count(*) FROM attempts`); got != attempts {
		t.Errorf("%d attempts started in %s; want none while the path names another file", got-attempts, d)
	}
}

// TestAServerWhoseDatabaseIsMovedAwayAdmitsNothingUntilItIsMovedBack: on
// both profiles, a server whose database file is renamed away says so
// (/readyz 503 database_moved, the metrics state, one error line), admits
// no Run of a due every-second trigger while it is away and creates no
// file at the path; renamed back, it is ready again by itself and its Runs
// resume.
func TestAServerWhoseDatabaseIsMovedAwayAdmitsNothingUntilItIsMovedBack(t *testing.T) {
	t.Parallel()
	for _, p := range []Profile{Standalone, Edge} {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			m := startMovable(t, p, time.Hour, everySecond)
			waitFor(t, "the first Run", 10*time.Second, func() bool { return count(t, m.file, runsSQL) > 0 })
			away := m.db + ".away"
			if err := os.Rename(m.db, away); err != nil {
				t.Fatal(err)
			}
			m.waitMoved(t, "missing")
			m.nothingAdmittedFor(t, 3*time.Second)
			m.noFileAtThePath(t)
			held := count(t, m.file, runsSQL)
			if err := os.Rename(away, m.db); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "/readyz to say ready", 10*time.Second, func() bool {
				code, _ := m.readyz(t)
				return code == http.StatusOK
			})
			if got := m.srv.readinessState(); got != metrics.StateReady {
				t.Errorf("readiness state %q once moved back, want %q", got, metrics.StateReady)
			}
			if !strings.Contains(m.log.String(), "code="+CodeDatabaseBack) {
				t.Errorf("no %s line once moved back:\n%s", CodeDatabaseBack, m.log.String())
			}
			waitFor(t, "a Run once moved back", 10*time.Second, func() bool { return count(t, m.file, runsSQL) > held })
		})
	}
}

// TestADeletedOrReplacedDatabaseFileHoldsTheServer: a database file
// deleted, or replaced by another database (a copy of it), is noticed as a
// moved one: /readyz 503 database_moved, the error line saying what the
// path now names, and no Run admitted.
func TestADeletedOrReplacedDatabaseFileHoldsTheServer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, found string
		change      func(t *testing.T, m *movedServer)
	}{
		{"deleted", "missing", func(t *testing.T, m *movedServer) {
			if err := os.Remove(m.db); err != nil {
				t.Fatal(err)
			}
		}},
		{"replaced by a copy", `"another file"`, func(t *testing.T, m *movedServer) {
			cp := filepath.Join(t.TempDir(), "copy.db")
			src, err := sql.Open("sqlite", m.db)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			if _, err := src.Exec(`VACUUM INTO ?`, cp); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(cp, m.db); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := startMovable(t, Standalone, time.Hour, everySecond)
			c.change(t, m)
			m.waitMoved(t, c.found)
			m.nothingAdmittedFor(t, 2*time.Second)
		})
	}
}

// TestACommandIsNotStartedWhileTheDatabaseIsMovedAndStartsOnceItIsBack: a
// Run admitted into the server's own file while its path names no file
// (through the server's store, as the API's run-now does) is not started,
// however often the dispatcher wakes; moved back, the command runs.
func TestACommandIsNotStartedWhileTheDatabaseIsMovedAndStartsOnceItIsBack(t *testing.T) {
	t.Parallel()
	m := startMovable(t, Standalone, time.Second, never)
	away := m.db + ".away"
	if err := os.Rename(m.db, away); err != nil {
		t.Fatal(err)
	}
	m.waitMoved(t, "missing")
	var triggerID string
	if err := m.file.QueryRow(`SELECT id FROM triggers`).Scan(&triggerID); err != nil {
		t.Fatal(err)
	}
	res, err := m.srv.store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: triggerID, RequestID: ids.New(), Actor: "test"})
	if err != nil || res.RunID == "" {
		t.Fatalf("run now: %+v, %v", res, err)
	}
	m.srv.disp.Wake()
	// The dispatcher polls every second (the cadence) besides the wake.
	time.Sleep(3 * time.Second)
	if n := count(t, m.file, `SELECT count(*) FROM attempts WHERE state <> 'claimed'`); n != 0 {
		t.Fatalf("%d attempts started while the path names no file; want none", n)
	}
	m.noFileAtThePath(t)
	if err := os.Rename(away, m.db); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the Run to run once moved back", 10*time.Second, func() bool {
		return count(t, m.file, `SELECT count(*) FROM runs WHERE id = ? AND state = 'succeeded'`, res.RunID) == 1
	})
}
