package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/testkit/filetemplate"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// clock is the tests' injected time: it starts half a minute past a minute
// boundary (so "* * * * *" is never due at creation) and ticks 1 ms per
// reading, so successive stamps are strictly ordered.
type clock struct{ ms atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ms.Store(time.Date(2030, 1, 2, 3, 4, 30, 0, time.UTC).UnixMilli())
	return c
}

func (c *clock) NowMs() int64            { return c.ms.Add(1) }
func (c *clock) Advance(d time.Duration) { c.ms.Add(d.Milliseconds()) }

// env is one migrated, ready database file with its store, clock and a
// separate raw connection for observations outside the contracts.
type env struct {
	store *Store
	clock *clock
	raw   *sql.DB
	path  string

	mu sync.Mutex
	// finishes repeats each Run's last finish (finishAgain).
	finishes map[string]func(context.Context) (run.State, error)
	// told is what each Run's last started attempt was told (Told).
	told map[string]run.Identity
}

func newEnv(t testing.TB) *env {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ql.db")
	filetemplate.CopyTo(t, "sqlitestore-migrated", migrateFresh, path)
	c := newClock()
	s, err := Open(t.Context(), Config{Path: path, NowMs: c.NowMs})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	// The copy is already migrated; this finds the history complete and
	// proves the copy is.
	if applied, err := s.Migrate(t.Context()); err != nil || len(applied) > 0 {
		t.Fatalf("migrate a migrated copy: applied %v, %v", applied, err)
	}
	if err := s.Ready(t.Context()); err != nil {
		t.Fatalf("ready: %v", err)
	}
	// The fixture's own writes (makeDue, tamper) commit as the store's
	// routine commits do, without waiting for the disk: a benchmark that
	// makes triggers due between its rounds measures the store, not a
	// flush per trigger that no server makes.
	raw, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return &env{store: s, clock: c, raw: raw, path: path}
}

// migrateFresh builds the migrated database every env starts from: a
// fresh file through the same Open and Migrate as a first start, closed so
// that its write-ahead log is folded into the file.
func migrateFresh(ctx context.Context, path string) error {
	s, err := Open(ctx, Config{Path: path, NowMs: newClock().NowMs})
	if err != nil {
		return err
	}
	if _, err := s.Migrate(ctx); err != nil {
		return errors.Join(err, s.Close())
	}
	return s.Close()
}

func (e *env) service() catalog.Service {
	return catalog.Service{Store: e.store, Executor: task.LocalProcess, NowMs: e.clock.NowMs}
}

// Observation statements, outside the adapter's contracts.
const (
	rowSQL = `SELECT trigger_revision, next_fire_at_ms, next_fire_at_ms + due_offset_ms, last_scheduled_at_ms, state_version
		FROM trigger_schedules WHERE trigger_id = ?`
	countsSQL = `SELECT
		(SELECT count(*) FROM runs WHERE trigger_id = ?1),
		(SELECT count(*) FROM attempts a JOIN runs r ON r.id = a.run_id WHERE r.trigger_id = ?1),
		(SELECT count(*) FROM run_events e JOIN runs r ON r.id = e.run_id WHERE r.trigger_id = ?1)`
	makeDueSQL = `UPDATE trigger_schedules SET next_fire_at_ms = ?, state_version = state_version + 1 WHERE trigger_id = ?`
)

func (e *env) row(ctx context.Context, triggerID string) (storetest.Row, error) {
	var r storetest.Row
	var next, due, last sql.NullInt64
	err := e.raw.QueryRowContext(ctx, rowSQL, triggerID).Scan(&r.TriggerRevision, &next, &due, &last, &r.StateVersion)
	r.NextFireAtMs, r.DueAtMs, r.LastScheduledAtMs = ptr(next), ptr(due), ptr(last)
	return r, err
}

func (e *env) counts(ctx context.Context, triggerID string) (storetest.Counts, error) {
	var c storetest.Counts
	err := e.raw.QueryRowContext(ctx, countsSQL, triggerID).Scan(&c.Runs, &c.Attempts, &c.Events)
	return c, err
}

func (e *env) makeDue(ctx context.Context, triggerID string, lateMs int64) error {
	_, err := e.raw.ExecContext(ctx, makeDueSQL, e.clock.NowMs()-lateMs, triggerID)
	return err
}

// tamper edits rows outside the store; the statements drop the
// immutability trigger of the table they rewrite (the file is the test's
// own).
func (e *env) tamper(ctx context.Context, sql string, args ...any) error {
	_, err := e.raw.ExecContext(ctx, sql, args...)
	return err
}

// audits lists a trigger's pause audit records as the suite compares them.
func (e *env) audits(ctx context.Context, triggerID string) ([]string, error) {
	rows, err := e.raw.QueryContext(ctx, `SELECT action || ' ' || actor || ' ' || coalesce(note, '') FROM trigger_schedule_audit WHERE trigger_id = ? ORDER BY id`, triggerID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

func (e *env) fixture() storetest.Fixture {
	return storetest.Fixture{
		Catalog:     e.store,
		Definitions: e.store,
		Schedule:    e.store,
		Runs:        e.store,
		Last:        e.store,
		Status:      e.store,
		Count:       e.store,
		Snapshot:    e.store,
		Service:     e.service(),
		AnotherService: func(t *testing.T) catalog.Service {
			s, err := Open(t.Context(), Config{Path: e.path, NowMs: e.clock.NowMs})
			if err != nil {
				t.Fatalf("open the file again: %v", err)
			}
			t.Cleanup(func() { s.Close() })
			return catalog.Service{Store: s, Executor: task.LocalProcess, NowMs: e.clock.NowMs}
		},
		Row:            e.row,
		Counts:         e.counts,
		MakeDue:        e.makeDue,
		NowMs:          func(context.Context) (int64, error) { return e.clock.NowMs(), nil },
		Pauser:         e.store,
		Adopter:        e.store,
		ProjectPauser:  e.store,
		ProjectPauses:  e.store,
		Tokens:         e.store,
		Users:          e.store,
		UserAuth:       e.store,
		DependencyKeys: e.store,
		Sessions:       e.store,
		Cancel:         e.store.CancelRun,
		Auth:           e.store,
		Detail:         e.store,
		Audits:         e.audits,
		Elapse:         e.clock.Advance,
		Manual:         e.store,
		Outbox:         e.store,
		Audit:          e.store,
		Record:         e.store,
		Finish:         e.finish,
		DispatchOrder:  e.pendingOrder,
		FinishKilled:   e.finishKilled,
		FinishAgain:    e.finishAgain,
		Told: func(runID string) run.Identity {
			e.mu.Lock()
			defer e.mu.Unlock()
			return e.told[runID]
		},
		RequeueRetries: func(ctx context.Context) (int, error) {
			n, _, err := e.store.RetriesRequeue(ctx, 100)
			return n, err
		},
		FinishWithOutput: e.finishWithOutput,
		FinishAfter:      e.finishAfter,
		PassDeadline: func(ctx context.Context, runID string) error {
			return e.tamper(ctx, `UPDATE attempts SET started_at_ms = ? - 1 - (SELECT json_extract(x.command_json, '$.timeoutMs')
					FROM runs r JOIN execution_revisions x ON x.id = r.execution_revision_id WHERE r.id = attempts.run_id)
				WHERE run_id = ? AND state = 'running'`, e.clock.NowMs(), runID)
		},
		Retention:    e.store.Retention(e.logDir()),
		SeedFinished: e.seedFinished,
		SeedLost:     e.seedLost,
		Backdate:     e.backdate,
		BackdateNotification: func(ctx context.Context, id string, d time.Duration) error {
			return e.tamper(ctx, backdateNotificationSQL, id, d.Milliseconds())
		},
		SeedNotifications: func(ctx context.Context, templateID string, n int) error {
			return e.tamper(ctx, seedNotificationsSQL, templateID, n)
		},
		HasLog:       e.hasLog,
		Monitor:      e.store,
		Activity:     e.store,
		DatabaseSize: e.store.DatabaseSize,
		RunLogsSize:  e.store.Retention(e.logDir()).RunLogsSize,
		MoveCursor: func(ctx context.Context, triggerID string, cursorMs int64, dueOffsetMs *int64) error {
			return e.tamper(ctx, `UPDATE trigger_schedules SET next_fire_at_ms = ?, due_offset_ms = ?, state_version = state_version + 1
				WHERE trigger_id = ?`, cursorMs, nullable(dueOffsetMs), triggerID)
		},
		Tamper: storetest.Tamper{
			SetCursor: func(ctx context.Context, triggerID string, cursorMs int64, bump bool) error {
				by := 0
				if bump {
					by = 1
				}
				return e.tamper(ctx, `UPDATE trigger_schedules SET next_fire_at_ms = ?, state_version = state_version + ? WHERE trigger_id = ?`,
					cursorMs, by, triggerID)
			},
			SetLastScheduled: func(ctx context.Context, triggerID string, lastScheduledMs *int64) error {
				return e.tamper(ctx, `UPDATE trigger_schedules SET last_scheduled_at_ms = ? WHERE trigger_id = ?`, nullable(lastScheduledMs), triggerID)
			},
			SetWrittenAt: func(ctx context.Context, triggerID string, writtenAtMs int64) error {
				return e.tamper(ctx, `UPDATE trigger_schedules SET updated_at_ms = ? WHERE trigger_id = ?`, writtenAtMs, triggerID)
			},
			FailAuditWrites: func(ctx context.Context) error {
				return e.tamper(ctx, `CREATE TRIGGER audit_log_refused BEFORE INSERT ON audit_log BEGIN SELECT RAISE(ABORT, 'the test refuses audit records'); END`)
			},
			AgeTokens: func(ctx context.Context, name string, byMs int64) error {
				return e.tamper(ctx, `UPDATE api_tokens SET created_at_ms = created_at_ms - ?2, expires_at_ms = expires_at_ms - ?2 WHERE name = ?1`, name, byMs)
			},
			AgeSession: func(ctx context.Context, digest []byte, byMs int64) error {
				return e.tamper(ctx, `UPDATE console_sessions SET created_at_ms = created_at_ms - ?2, last_seen_at_ms = last_seen_at_ms - ?2,
					expires_at_ms = expires_at_ms - ?2 WHERE digest = ?1`, digest, byMs)
			},
			RewriteTrigger: func(ctx context.Context, triggerID, name string, enabled bool, digest string) error {
				return e.tamper(ctx, `DROP TRIGGER IF EXISTS trigger_revisions_immutable;
					UPDATE trigger_revisions SET name = ?, enabled = ?, content_digest = ?
					WHERE (trigger_id, revision) = (SELECT id, current_revision FROM triggers WHERE id = ?)`, name, enabled, digest, triggerID)
			},
			SetZone: func(ctx context.Context, triggerID, zone, digest string) error {
				return e.tamper(ctx, `DROP TRIGGER IF EXISTS trigger_revisions_immutable;
					UPDATE trigger_revisions SET timezone = ?, content_digest = ?
					WHERE (trigger_id, revision) = (SELECT id, current_revision FROM triggers WHERE id = ?)`, zone, digest, triggerID)
			},
			SetMisfirePolicy: func(ctx context.Context, triggerID, policy, digest string) error {
				return e.tamper(ctx, `PRAGMA ignore_check_constraints = ON;
					DROP TRIGGER IF EXISTS trigger_revisions_immutable;
					UPDATE trigger_revisions SET misfire_policy = ?, content_digest = ?
					WHERE (trigger_id, revision) = (SELECT id, current_revision FROM triggers WHERE id = ?);
					PRAGMA ignore_check_constraints = OFF`, policy, digest, triggerID)
			},
			CorruptTaskCommand: func(ctx context.Context, taskID string, revision int64) error {
				return e.tamper(ctx, `DROP TRIGGER IF EXISTS task_revisions_immutable;
					UPDATE task_revisions SET spec_json = json_set(spec_json, '$.command.args', json_array('rm', '-rf', '/'))
					WHERE task_id = ? AND revision = ?`, taskID, revision)
			},
			SetTaskDigest: func(ctx context.Context, taskID string, revision int64, digest string) error {
				return e.tamper(ctx, `DROP TRIGGER IF EXISTS task_revisions_immutable;
					UPDATE task_revisions SET content_digest = ? WHERE task_id = ? AND revision = ?`, digest, taskID, revision)
			},
			DeleteExecutions: func(ctx context.Context, taskID string) error {
				return e.tamper(ctx, `DELETE FROM execution_revisions WHERE task_id = ?`, taskID)
			},
			CorruptExecutions: func(ctx context.Context, taskID string) error {
				return e.tamper(ctx, `DROP TRIGGER IF EXISTS execution_revisions_immutable;
					UPDATE execution_revisions SET command_json = json_set(command_json, '$.args', json_array('rm', '-rf', '/')) WHERE task_id = ?`, taskID)
			},
			DeleteSchedule: func(ctx context.Context, triggerID string) error {
				return e.tamper(ctx, `DELETE FROM trigger_schedules WHERE trigger_id = ?`, triggerID)
			},
			SetPauseSpan: func(ctx context.Context, triggerID string, fromMs, untilMs int64) error {
				return e.tamper(ctx, `UPDATE trigger_schedules SET paused_at_ms = ?, resumed_at_ms = ? WHERE trigger_id = ?`, fromMs, untilMs, triggerID)
			},
			SeedLedger: func(ctx context.Context, triggerID string, n int) error {
				return e.tamper(ctx, `WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < ?2)
					INSERT INTO occurrence_ledger (trigger_id, seq, trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms,
						occurrence_count, at_least, recorded_at_ms)
					SELECT ?1, n, 1, CASE n % 2 WHEN 1 THEN 'misfire' ELSE 'collapsed' END, n * 1000, n * 1000, 1, 0, 1 FROM i`, triggerID, n)
			},
			FailQueuedEvents: func(ctx context.Context) error {
				return e.tamper(ctx, `CREATE TRIGGER injected_fault BEFORE INSERT ON run_events WHEN NEW.name = 'run.queued'
					BEGIN SELECT RAISE(ABORT, 'injected fault'); END`)
			},
			ReopenAttempts: func(ctx context.Context, runID string) error {
				return e.tamper(ctx, `UPDATE attempts SET state = 'running', finished_at_ms = NULL WHERE run_id = ?`, runID)
			},
			FailNotificationInserts: func(ctx context.Context) error {
				return e.tamper(ctx, `CREATE TRIGGER injected_outbox_fault BEFORE INSERT ON notification_outbox
					BEGIN SELECT RAISE(ABORT, 'injected fault'); END`)
			},
		},
	}
}

func newFixture(t *testing.T) storetest.Fixture { return newEnv(t).fixture() }

// finish starts a queued Run's attempt as the dispatcher does and ends it
// as the executor reports (or, for lost, as recovery finds its owner gone).
func (e *env) finish(ctx context.Context, runID string, end run.AttemptState) (run.State, error) {
	return e.finishRun(ctx, runID, end, 0, nil, nil)
}

// finishKilled is finish failed by signal, which killed the command.
func (e *env) finishKilled(ctx context.Context, runID string, signal int) (run.State, error) {
	return e.finishRun(ctx, runID, run.AttemptFailed, signal, nil, nil)
}

// finishWithOutput is finish after output was written to the attempt's
// log file, as the executor writes it before recording the result.
func (e *env) finishWithOutput(ctx context.Context, runID string, end run.AttemptState, output []byte) (run.State, error) {
	return e.finishRun(ctx, runID, end, 0, output, nil)
}

// finishAfter is finish with atStart called once the attempt runs.
func (e *env) finishAfter(ctx context.Context, runID string, end run.AttemptState, atStart func(context.Context) error) (run.State, error) {
	return e.finishRun(ctx, runID, end, 0, nil, atStart)
}

// finishRun starts the latest attempt of runID when it is still claimed,
// writes output to its log, calls atStart (when given) and records end as
// the executor (or, for lost, the recovery) does: killed by signal when
// it is not 0.
func (e *env) finishRun(ctx context.Context, runID string, end run.AttemptState, signal int, output []byte, atStart func(context.Context) error) (run.State, error) {
	d, err := e.store.RunGet(ctx, runID)
	if err != nil {
		return "", err
	}
	if len(d.Attempts) == 0 {
		return "", fmt.Errorf("run %s has no attempt", runID)
	}
	a := d.Attempts[len(d.Attempts)-1]
	owner := fmt.Sprintf("finish-%s-%d", runID, a.Number)
	if a.State == run.AttemptClaimed {
		if err := os.MkdirAll(e.logDir(), 0o700); err != nil {
			return "", err
		}
		logPath := filepath.Join(e.logDir(), a.ID+".log")
		_, told, _, err := e.store.AttemptStart(ctx, a.ID, owner, logPath)
		if err != nil {
			return "", err
		}
		e.mu.Lock()
		if e.told == nil {
			e.told = map[string]run.Identity{}
		}
		e.told[runID] = told
		e.mu.Unlock()
		if err := e.store.AttemptRunning(ctx, a.ID, 4242); err != nil {
			return "", err
		}
		if output != nil {
			if err := os.WriteFile(logPath, output, 0o600); err != nil {
				return "", err
			}
		}
	}
	if atStart != nil {
		if err := atStart(ctx); err != nil {
			return "", err
		}
	}
	var apply func(ctx context.Context) (run.State, error)
	if end == run.AttemptLost {
		apply = func(ctx context.Context) (run.State, error) {
			_, finished, err := e.store.AttemptsLose(ctx, owner)
			if finished.Total() > 1 {
				return "", fmt.Errorf("the recovery of %s finished %d Runs", owner, finished.Total())
			}
			for _, s := range run.FinishedStates {
				if finished.Of(s) == 1 {
					return s, err
				}
			}
			return "", err
		}
	} else {
		// As a worker's completion on PostgreSQL: the command exited 0 or
		// 1, a timed-out one was stopped and has no exit code.
		code, exit := "", int64(0)
		if end != run.AttemptSucceeded {
			code, exit = "exit_status", 1
		}
		result := run.Attempt{ID: a.ID, State: end, ErrorCode: code}
		switch {
		case signal != 0:
			result.ErrorCode, result.Signal = process.ErrorCodeSignaled, signal
		case end == run.AttemptSucceeded || end == run.AttemptFailed:
			result.ExitCode = &exit
		}
		apply = func(ctx context.Context) (run.State, error) { return e.store.AttemptFinish(ctx, result) }
	}
	e.mu.Lock()
	if e.finishes == nil {
		e.finishes = map[string]func(context.Context) (run.State, error){}
	}
	e.finishes[runID] = apply
	e.mu.Unlock()
	return apply(ctx)
}

// finishAgain applies the last finish of runID once more: the executor's
// result recorded again, or the recovery of its owner run again.
func (e *env) finishAgain(ctx context.Context, runID string) (run.State, error) {
	e.mu.Lock()
	apply := e.finishes[runID]
	e.mu.Unlock()
	if apply == nil {
		return "", fmt.Errorf("run %s was never finished", runID)
	}
	return apply(ctx)
}

func TestFinishedConformance(t *testing.T) {
	t.Parallel()
	storetest.RunFinished(t, newFixture)
}

func TestNotifyConformance(t *testing.T) {
	t.Parallel()
	storetest.RunNotify(t, newFixture)
}

func TestDefinitionsConformance(t *testing.T) {
	t.Parallel()
	storetest.RunDefinitions(t, newFixture)
}

func TestCatalogConformance(t *testing.T) {
	t.Parallel()
	storetest.RunCatalog(t, newFixture)
}

func TestScheduleConformance(t *testing.T) {
	t.Parallel()
	storetest.RunSchedule(t, newFixture)
}

func TestRunReaderConformance(t *testing.T) {
	t.Parallel()
	storetest.RunRunReader(t, newFixture)
}

func TestTokenConformance(t *testing.T) {
	t.Parallel()
	storetest.RunTokens(t, newFixture)
}

func TestDependencyKeyConformance(t *testing.T) {
	t.Parallel()
	storetest.RunDependencyKeys(t, newFixture)
}

func TestUserConformance(t *testing.T) {
	t.Parallel()
	storetest.RunUsers(t, newFixture)
}

func TestAuditConformance(t *testing.T) {
	t.Parallel()
	storetest.RunAudit(t, newFixture)
}

func TestSessionConformance(t *testing.T) {
	t.Parallel()
	storetest.RunSessions(t, newFixture)
}

func TestRetentionConformance(t *testing.T) {
	t.Parallel()
	storetest.RunRetention(t, newFixture)
}

func TestStatusReaderConformance(t *testing.T) {
	t.Parallel()
	storetest.RunStatusReader(t, newFixture)
}

// queryPlan is SQLite's plan of q with args, one detail line per step.
func (e *env) queryPlan(t *testing.T, q string, args ...any) []string {
	t.Helper()
	rows, err := e.raw.Query("EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}

func TestRetryConformance(t *testing.T) {
	t.Parallel()
	storetest.RunRetry(t, newFixture)
}

// pageFirst tells whether plan finds a listing's page of ids in a subquery
// SQLite fills before it returns the first row (a LIST SUBQUERY), then
// reads each row of table (as the statement names it) by its primary key,
// keyIndex: the whole walk for the page is then in the statement's first
// step, the one step the driver interrupts when the request's context
// ends, so a listing whose later rows lie far apart never runs on past its
// time limit.
func pageFirst(plan, table, keyIndex string) bool {
	return strings.Contains(plan, "LIST SUBQUERY") &&
		strings.HasPrefix(plan, "SEARCH "+table+" USING INDEX "+keyIndex+" (id=?)")
}
