package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
)

// seedSQL copies an admitted Run (?1) ?2 times as Runs that ended ?8
// (succeeded, or lost) at ?3, each with one attempt ended the same way (a
// log of ?4 bytes when ?4 > 0, in the directory ?5) and three events,
// written behind the store's back. Ids are the random prefixes ?6 (runs)
// and ?7 (attempts) followed by a counter.
const seedSQL = `
CREATE TEMP TABLE IF NOT EXISTS seed (n INTEGER PRIMARY KEY, run_id TEXT, attempt_id TEXT);
DELETE FROM temp.seed;
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < ?2)
INSERT INTO temp.seed SELECT n, printf('%s%012x', ?6, n), printf('%s%012x', ?7, n) FROM i;
INSERT INTO runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
	idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, finished_at_ms)
SELECT s.run_id, r.project_id, r.task_id, r.task_revision, r.trigger_id, r.trigger_revision, r.execution_revision_id,
	'seed:' || s.run_id, ?3, ?8, 4, 3, ?3, ?3, ?3, ?3 FROM temp.seed s, runs r WHERE r.id = ?1;
INSERT INTO attempts (id, run_id, number, executor, state, owner, exit_code, created_at_ms, started_at_ms, finished_at_ms, log_path, log_bytes, project_id)
SELECT s.attempt_id, s.run_id, 1, 'local_process', ?8, 'seed', CASE WHEN ?8 = 'succeeded' THEN 0 END, ?3, ?3, ?3,
	CASE WHEN ?4 > 0 THEN ?5 || '/' || s.attempt_id || '.log' ELSE '' END, ?4, r.project_id FROM temp.seed s, runs r WHERE r.id = ?1;
INSERT INTO run_events (run_id, seq, name, payload, created_at_ms)
SELECT s.run_id, e.seq, e.name, '{}', ?3 FROM temp.seed s,
	(SELECT 1 AS seq, 'run.created' AS name UNION ALL SELECT 2, 'run.queued' UNION ALL SELECT 3, 'run.' || ?8) e;`

const backdateSQL = `UPDATE runs SET created_at_ms = created_at_ms - ?2, queued_at_ms = queued_at_ms - ?2, updated_at_ms = updated_at_ms - ?2,
	scheduled_for_ms = scheduled_for_ms - ?2, due_at_ms = due_at_ms - ?2, finished_at_ms = finished_at_ms - ?2 WHERE id = ?1;
	UPDATE attempts SET created_at_ms = created_at_ms - ?2, started_at_ms = started_at_ms - ?2, finished_at_ms = finished_at_ms - ?2
	WHERE run_id = ?1`

const backdateNotificationSQL = `UPDATE notification_outbox SET created_at_ms = created_at_ms - ?2, updated_at_ms = updated_at_ms - ?2,
	next_attempt_at_ms = next_attempt_at_ms - ?2, delivered_at_ms = delivered_at_ms - ?2 WHERE id = ?1`

// seedNotificationsSQL copies outbox row ?1 ?2 times as pending rows with
// fresh ids and subjects, copy k due k ms before it.
const seedNotificationsSQL = `WITH RECURSIVE k (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?2)
INSERT INTO notification_outbox (id, project_id, run_id, rule_key, subject, event, channel_json, payload_json, state,
                                 attempts, next_attempt_at_ms, created_at_ms, updated_at_ms)
SELECT lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-' || hex(randomblob(2)) || '-' || hex(randomblob(2)) || '-' || hex(randomblob(6))),
       o.project_id, o.run_id, o.rule_key, o.subject || '#' || k.i, o.event, o.channel_json, o.payload_json, 'pending',
       0, o.next_attempt_at_ms - k.i, o.created_at_ms, o.updated_at_ms
  FROM notification_outbox o, k WHERE o.id = ?1`

// logDir is the store's log directory (its Config.LogDir's default).
func (e *env) logDir() string { return filepath.Join(filepath.Dir(e.path), DefaultLogDirName) }

// idPrefix is a random UUIDv7-shaped prefix to which seedSQL appends a
// 12-digit counter.
func idPrefix() string { return ids.New()[:24] }

func (e *env) seedFinished(ctx context.Context, template string, n int, finishedAtMs int64, logBytes int) ([]string, error) {
	return e.seedEnded(ctx, run.Succeeded, template, n, finishedAtMs, logBytes)
}

func (e *env) seedLost(ctx context.Context, template string, n int, lostAtMs int64, logBytes int) ([]string, error) {
	return e.seedEnded(ctx, run.Lost, template, n, lostAtMs, logBytes)
}

func (e *env) seedEnded(ctx context.Context, state run.State, template string, n int, endedAtMs int64, logBytes int) ([]string, error) {
	if err := os.MkdirAll(e.logDir(), 0o700); err != nil {
		return nil, err
	}
	runs, attempts := idPrefix(), idPrefix()
	if err := e.seedBehind(ctx, seedSQL, template, n, endedAtMs, logBytes, e.logDir(), runs, attempts, string(state)); err != nil {
		return nil, err
	}
	out := make([]string, n)
	content := []byte(strings.Repeat("x", logBytes))
	for i := range n {
		out[i] = fmt.Sprintf("%s%012x", runs, i+1)
		if logBytes > 0 {
			if err := os.WriteFile(filepath.Join(e.logDir(), fmt.Sprintf("%s%012x", attempts, i+1)+".log"), content, 0o600); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
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
