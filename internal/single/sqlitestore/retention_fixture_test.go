package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
)

// Seeding statements: a finished copy of an admitted Run, its attempt and
// its three events, written behind the store's back.
const (
	seedRunSQL = `INSERT INTO runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
		idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, finished_at_ms)
		SELECT ?1, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
		       'seed:' || ?1, ?2, 'succeeded', 4, 3, ?2, ?2, ?2, ?2 FROM runs WHERE id = ?3`
	seedAttemptSQL = `INSERT INTO attempts (id, run_id, number, executor, state, owner, exit_code, created_at_ms, started_at_ms, finished_at_ms, log_path, log_bytes)
		VALUES (?1, ?2, 1, 'local_process', 'succeeded', 'seed', 0, ?3, ?3, ?3, ?4, ?5)`
	seedEventsSQL = `INSERT INTO run_events (run_id, seq, name, payload, created_at_ms)
		VALUES (?1, 1, 'run.created', '{}', ?2), (?1, 2, 'run.queued', '{}', ?2), (?1, 3, 'run.succeeded', '{}', ?2)`
	backdateSQL = `UPDATE runs SET created_at_ms = created_at_ms - ?2, queued_at_ms = queued_at_ms - ?2, updated_at_ms = updated_at_ms - ?2,
		scheduled_for_ms = scheduled_for_ms - ?2, due_at_ms = due_at_ms - ?2 WHERE id = ?1;
		UPDATE attempts SET created_at_ms = created_at_ms - ?2 WHERE run_id = ?1`
)

func (e *env) logDir() string { return filepath.Join(filepath.Dir(e.path), "logs") }

func (e *env) seedFinished(ctx context.Context, template string, n int, finishedAtMs int64, logBytes int) ([]string, error) {
	if err := os.MkdirAll(e.logDir(), 0o700); err != nil {
		return nil, err
	}
	tx, err := e.raw.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // no-op after commit
	out := make([]string, 0, n)
	for range n {
		runID, attemptID := ids.New(), ids.New()
		logPath := ""
		if logBytes > 0 {
			logPath = filepath.Join(e.logDir(), attemptID+".log")
			if err := os.WriteFile(logPath, []byte(strings.Repeat("x", logBytes)), 0o600); err != nil {
				return nil, err
			}
		}
		for _, st := range []struct {
			q    string
			args []any
		}{
			{seedRunSQL, []any{runID, finishedAtMs, template}},
			{seedAttemptSQL, []any{attemptID, runID, finishedAtMs, logPath, logBytes}},
			{seedEventsSQL, []any{runID, finishedAtMs}},
		} {
			if _, err := tx.ExecContext(ctx, st.q, st.args...); err != nil {
				return nil, err
			}
		}
		out = append(out, runID)
	}
	return out, tx.Commit()
}

func (e *env) backdate(ctx context.Context, runID string, d time.Duration) error {
	return e.tamper(ctx, backdateSQL, runID, d.Milliseconds())
}

// hasLog: the file is there and the attempt, if it is still stored,
// points to it.
func (e *env) hasLog(ctx context.Context, attemptID string) (bool, error) {
	path := "(attempt deleted)"
	err := e.raw.QueryRowContext(ctx, `SELECT log_path FROM attempts WHERE id = ?`, attemptID).Scan(&path)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, err
	}
	_, err = os.Stat(filepath.Join(e.logDir(), attemptID+".log"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if path != "" && path != "(attempt deleted)" {
			return false, errors.New("attempt " + attemptID + " points to a log file that is gone")
		}
		return false, nil
	case err != nil:
		return false, err
	}
	if path == "(attempt deleted)" {
		return false, errors.New("the log file of deleted attempt " + attemptID + " is still there")
	}
	return path != "", nil
}
