package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/retention"
)

// A running server deletes finished Runs once they are older than its
// retention, with their log files, while its scheduler goes on admitting
// and its executor on running.
func TestAServerRunsRetentionWhileItsSchedulerAdmits(t *testing.T) {
	t.Parallel()
	dataDir := installedDir(t)
	publish(t, dataDir, 2, "echo hello")
	srv, err := Start(t.Context(), Config{DataDir: dataDir, Cadence: 250 * time.Millisecond, StopTimeout: testStopTimeout, Concurrency: 2,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Retention: RetentionConfig{Set: true, Policy: retention.Policy{RunsAge: 30 * retention.Day}, Cadence: 250 * time.Millisecond,
			Options: retention.Options{BatchSize: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background()) //nolint:errcheck // stopped below; a failed test stops it here
	db := observer(t, dataDir)
	const finished = `SELECT count(*) FROM runs WHERE state = 'succeeded'`
	waitFor(t, "four finished runs", 30*time.Second, func() bool { return count(t, db, finished) >= 4 })
	// Age the finished runs behind the server's back, as if 40 days had
	// passed since they finished.
	aged := ageFinishedRuns(t, dataDir, 40*retention.Day)
	before := count(t, db, `SELECT count(*) FROM runs`)
	waitFor(t, "the aged runs to be deleted", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM attempts WHERE id IN (SELECT value FROM json_each(?))`, jsonList(t, aged)) == 0
	})
	waitFor(t, "admissions after the deletion", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM runs WHERE finished_at_ms IS NULL OR finished_at_ms > ?`, time.Now().Add(-time.Hour).UnixMilli()) >= before-len(aged)+2
	})
	for _, id := range aged {
		if _, err := os.Stat(filepath.Join(LayoutOf(dataDir).Logs, id+".log")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("the log of deleted attempt %s: %v, want it removed", id, err)
		}
	}
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// ageFinishedRuns moves the finish of every succeeded Run and its attempts
// d into the past, behind the server's back, and returns the attempts' ids.
func ageFinishedRuns(t *testing.T, dataDir string, d time.Duration) []string {
	t.Helper()
	rw, err := sql.Open("sqlite", LayoutOf(dataDir).DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	tx, err := rw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(`UPDATE attempts SET finished_at_ms = finished_at_ms - ?1 WHERE run_id IN (SELECT id FROM runs WHERE state = 'succeeded') RETURNING id`,
		d.Milliseconds())
	if err != nil {
		t.Fatal(err)
	}
	var aged []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		aged = append(aged, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE runs SET finished_at_ms = finished_at_ms - ?1 WHERE state = 'succeeded'`, d.Milliseconds()); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return aged
}

// A pass the server's stop ends after some of its batches committed still
// logs what they deleted, with what ended it: the rows are gone, and the
// log is the operator's only account of them.
func TestAPassTheStopEndsStillLogsWhatItDeleted(t *testing.T) {
	t.Parallel()
	dataDir := installedDir(t)
	publish(t, dataDir, 2, "echo hello")
	var logs lockedBuffer
	// One Run a batch, and an hour between batches: the stop comes after
	// the first batch, while the pass waits for the second.
	srv, err := Start(t.Context(), Config{DataDir: dataDir, Cadence: 250 * time.Millisecond, StopTimeout: testStopTimeout, Concurrency: 2,
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
		Retention: RetentionConfig{Set: true, Policy: retention.Policy{RunsAge: 30 * retention.Day}, Cadence: 250 * time.Millisecond,
			Options: retention.Options{BatchSize: 1, Pause: time.Hour}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background()) //nolint:errcheck // stopped below; a failed test stops it here
	db := observer(t, dataDir)
	waitFor(t, "two finished runs", 30*time.Second, func() bool { return count(t, db, `SELECT count(*) FROM runs WHERE state = 'succeeded'`) >= 2 })
	aged := ageFinishedRuns(t, dataDir, 40*retention.Day)
	waitFor(t, "the first batch", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM attempts WHERE id IN (SELECT value FROM json_each(?))`, jsonList(t, aged)) == len(aged)-1
	})
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	var deleted float64
	var endedBy []string
	for line := range strings.Lines(logs.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if rec["code"] == retention.CodePass {
			deleted += rec["runs"].(float64)
			endedBy = append(endedBy, fmt.Sprint(rec["ended_by"]))
		}
	}
	if deleted != 1 || len(endedBy) != 1 || !strings.Contains(endedBy[0], "context canceled") {
		t.Fatalf("retention.pass records: %v runs deleted, ended by %q; want the one Run of the stopped pass, ended by its cancel\n%s", deleted, endedBy, logs.String())
	}
}

func jsonList(t *testing.T, ids []string) string {
	t.Helper()
	b, err := json.Marshal(ids)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A log file the server's retention cannot remove is reported once per
// pass as a warning naming it, its cause and what to do, and never stops
// retention: every old Run goes, no pass fails, the file stays named for
// removal, and once it can go a later pass removes it.
func TestAServersRetentionWarnsOfALogItCannotRemoveAndGoesOn(t *testing.T) {
	t.Parallel()
	dataDir := installedDir(t)
	publish(t, dataDir, 2, "echo hello")
	var logs lockedBuffer
	srv, err := Start(t.Context(), Config{DataDir: dataDir, Cadence: 250 * time.Millisecond, StopTimeout: testStopTimeout, Concurrency: 2,
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
		Retention: RetentionConfig{Set: true, Policy: retention.Policy{RunsAge: 30 * retention.Day}, Cadence: 250 * time.Millisecond,
			Options: retention.Options{BatchSize: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background()) //nolint:errcheck // stopped below; a failed test stops it here
	db := observer(t, dataDir)
	waitFor(t, "three finished runs", 30*time.Second, func() bool { return count(t, db, `SELECT count(*) FROM runs WHERE state = 'succeeded'`) >= 3 })
	var jammed string
	if err := db.QueryRow(`SELECT a.id FROM attempts a JOIN runs r ON r.id = a.run_id WHERE r.state = 'succeeded' AND a.log_path <> '' ORDER BY r.finished_at_ms LIMIT 1`).Scan(&jammed); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(LayoutOf(dataDir).Logs, jammed+".log")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	aged := ageFinishedRuns(t, dataDir, 40*retention.Day)
	waitFor(t, "every aged run deleted", 30*time.Second, func() bool {
		return count(t, db, `SELECT count(*) FROM attempts WHERE id IN (SELECT value FROM json_each(?))`, jsonList(t, aged)) == 0
	})
	waitFor(t, "the warning", 30*time.Second, func() bool { return strings.Contains(logs.String(), retention.CodeNotRemoved) })
	if count(t, db, `SELECT count(*) FROM retention_logs WHERE attempt_id = ?`, jammed) != 1 {
		t.Fatalf("the jammed attempt %s's file is not named for removal; want it named while it is there", jammed)
	}
	var warned bool
	for line := range strings.Lines(logs.String()) {
		var rec struct {
			Code, Level, Action string
			NotRemoved          int `json:"not_removed"`
			Files               []string
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		switch rec.Code {
		case retention.CodePassFailed:
			t.Fatalf("a pass failed: %s", line)
		case retention.CodeNotRemoved:
			warned = true
			if rec.Level != "WARN" || rec.NotRemoved != 1 || len(rec.Files) != 1 || !strings.Contains(rec.Files[0], path) ||
				!strings.Contains(rec.Files[0], "directory not empty") || !strings.Contains(rec.Action, "chattr -i") {
				t.Fatalf("the warning %s; want one file named with its cause, and what to do", line)
			}
		}
	}
	if !warned {
		t.Fatalf("no %s record:\n%s", retention.CodeNotRemoved, logs.String())
	}
	if err := os.RemoveAll(filepath.Join(path, "inside")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the jammed file removed once it can go", 30*time.Second, func() bool {
		_, err := os.Stat(path)
		return errors.Is(err, fs.ErrNotExist) && count(t, db, `SELECT count(*) FROM retention_logs WHERE attempt_id = ?`, jammed) == 0
	})
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}
