package pgstore

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// testLease is long enough never to expire inside a test that does not
// wait for expiry on purpose.
const testLease = 30 * time.Second

// store is the env with the two roles' stores open.
type store struct {
	*env
	admin   *Admin
	runtime *Runtime
	// orderWorkers numbers the workers dispatchOrder registers.
	orderWorkers atomic.Int32
}

func newStore(t testing.TB) *store {
	t.Helper()
	e := newEnv(t)
	return &store{env: e, admin: e.openAdmin(t), runtime: e.openRuntime(t, "replica-a", testLease)}
}

func (e *env) openAdmin(t testing.TB) *Admin {
	t.Helper()
	a, err := OpenAdmin(t.Context(), e.url(RoleAdmin))
	if err != nil {
		t.Fatalf("open admin: %v", err)
	}
	t.Cleanup(a.Close)
	return a
}

func (e *env) openRuntime(t testing.TB, owner string, lease time.Duration) *Runtime {
	t.Helper()
	return e.openRuntimeAt(t, e.url(RoleRuntime), owner, lease)
}

// prefix is the role prefix of this environment's roles.
func (e *env) prefix() string { return e.roles.Runtime[:len(e.roles.Runtime)-len(RoleRuntime)] }

// openRuntimeAt opens a runtime store on url (the runtime role's URL, or a
// proxy in front of it).
func (e *env) openRuntimeAt(t testing.TB, url, owner string, lease time.Duration) *Runtime {
	t.Helper()
	r, err := OpenRuntime(t.Context(), url, RuntimeConfig{Owner: owner, Lease: lease, RolePrefix: e.prefix()})
	if err != nil {
		t.Fatalf("open runtime: %v", err)
	}
	t.Cleanup(r.Close)
	return r
}

// fixture adapts a store to the conformance suite. Publishing goes through
// the admin role and scheduling (pausing too, as a replica's API does)
// through the runtime role; the observation
// helpers read as the superuser, outside both contracts.
func (s *store) fixture() storetest.Fixture {
	fin := &finisher{s: s}
	return storetest.Fixture{
		Catalog:     s.admin,
		Definitions: s.runtime,
		Schedule:    s.runtime,
		Runs:        s.runtime,
		Last:        s.runtime,
		Status:      s.runtime,
		Count:       s.runtime,
		Snapshot:    s.runtime,
		Service: catalog.Service{Store: s.admin, Executor: task.RemoteWorker,
			NowMs: func() int64 { return time.Now().UnixMilli() }},
		AnotherService: func(t *testing.T) catalog.Service {
			return catalog.Service{Store: s.openAdmin(t), Executor: task.RemoteWorker, NowMs: func() int64 { return time.Now().UnixMilli() }}
		},
		Row:              s.row,
		Counts:           s.counts,
		MakeDue:          s.makeDue,
		NowMs:            s.runtime.NowMs,
		Pauser:           s.runtime,
		Adopter:          s.admin,
		ProjectPauser:    s.runtime,
		ProjectPauses:    s.runtime,
		Tokens:           s.admin,
		Users:            s.admin,
		UserAuth:         s.runtime,
		DependencyKeys:   s.runtime,
		Sessions:         s.runtime,
		Cancel:           s.runtime.CancelRun,
		Auth:             s.runtime,
		Detail:           s.runtime,
		Audits:           s.audits,
		Elapse:           time.Sleep,
		Manual:           s.runtime,
		Outbox:           s.runtime,
		Audit:            s.runtime,
		Record:           s.runtime,
		Finish:           fin.finish,
		DispatchOrder:    s.dispatchOrder,
		FinishKilled:     fin.finishKilled,
		Told:             fin.toldOf,
		FinishWithOutput: fin.finishWithOutput,
		FinishAfter:      fin.finishAfter,
		PassDeadline: func(ctx context.Context, runID string) error {
			return s.tamper(ctx, `UPDATE qinglong.attempts SET deadline_at_ms = `+ClockMsSQL+` - 1 WHERE run_id = $1 AND state = 'running'`, runID)
		},
		FinishAgain: fin.finishAgain,
		RequeueRetries: func(ctx context.Context) (int, error) {
			res, err := s.runtime.SweepLeases(ctx, 10)
			return res.Requeued, err
		},
		SeedFinished: s.seedFinished,
		SeedLost:     s.seedLost,
		Backdate:     s.backdate,
		BackdateNotification: func(ctx context.Context, id string, d time.Duration) error {
			return s.tamper(ctx, `UPDATE qinglong.notification_outbox SET created_at_ms = created_at_ms - $2, updated_at_ms = updated_at_ms - $2,
				next_attempt_at_ms = next_attempt_at_ms - $2, delivered_at_ms = delivered_at_ms - $2 WHERE id = $1`, id, d.Milliseconds())
		},
		SeedNotifications: func(ctx context.Context, templateID string, n int) error {
			return s.tamper(ctx, `INSERT INTO qinglong.notification_outbox (id, project_id, run_id, rule_key, subject, event, channel, payload,
					state, attempts, next_attempt_at_ms, created_at_ms, updated_at_ms)
				SELECT gen_random_uuid(), o.project_id, o.run_id, o.rule_key, o.subject || '#' || k, o.event, o.channel, o.payload,
					'pending', 0, o.next_attempt_at_ms - k, o.created_at_ms, o.updated_at_ms
				  FROM qinglong.notification_outbox o, generate_series(1, $2::int) AS k WHERE o.id = $1`, templateID, n)
		},
		HasLog:       s.hasLog,
		Monitor:      s.runtime,
		Activity:     s.runtime,
		DatabaseSize: s.runtime.DatabaseSize,
		RunLogsSize:  s.runtime.RunLogsSize,
		MoveCursor: func(ctx context.Context, triggerID string, cursorMs int64, dueOffsetMs *int64) error {
			return s.tamper(ctx, `UPDATE qinglong.trigger_schedules SET next_fire_at_ms = $2, due_offset_ms = $3, state_version = state_version + 1
				WHERE trigger_id = $1`, triggerID, cursorMs, dueOffsetMs)
		},
		Tamper: storetest.Tamper{
			SetCursor: func(ctx context.Context, triggerID string, cursorMs int64, bump bool) error {
				return s.tamper(ctx, `UPDATE qinglong.trigger_schedules
					SET next_fire_at_ms = $2, state_version = state_version + CASE WHEN $3 THEN 1 ELSE 0 END WHERE trigger_id = $1`, triggerID, cursorMs, bump)
			},
			SetLastScheduled: func(ctx context.Context, triggerID string, lastScheduledMs *int64) error {
				return s.tamper(ctx, `UPDATE qinglong.trigger_schedules SET last_scheduled_at_ms = $2 WHERE trigger_id = $1`, triggerID, lastScheduledMs)
			},
			SetWrittenAt: func(ctx context.Context, triggerID string, writtenAtMs int64) error {
				return s.tamper(ctx, `UPDATE qinglong.trigger_schedules SET updated_at_ms = $2 WHERE trigger_id = $1`, triggerID, writtenAtMs)
			},
			FailAuditWrites: func(ctx context.Context) error {
				return s.tamper(ctx, `CREATE FUNCTION qinglong.audit_log_refused() RETURNS trigger LANGUAGE plpgsql AS $$
					BEGIN RAISE EXCEPTION 'the test refuses audit records'; END $$;
					CREATE TRIGGER audit_log_refused BEFORE INSERT ON qinglong.audit_log FOR EACH ROW EXECUTE FUNCTION qinglong.audit_log_refused()`)
			},
			AgeTokens: func(ctx context.Context, name string, byMs int64) error {
				return s.tamper(ctx, `UPDATE qinglong.api_tokens SET created_at_ms = created_at_ms - $2, expires_at_ms = expires_at_ms - $2 WHERE name = $1`, name, byMs)
			},
			AgeSession: func(ctx context.Context, digest []byte, byMs int64) error {
				return s.tamper(ctx, `UPDATE qinglong.console_sessions SET created_at_ms = created_at_ms - $2, last_seen_at_ms = last_seen_at_ms - $2,
					expires_at_ms = expires_at_ms - $2 WHERE digest = $1`, digest, byMs)
			},
			RewriteTrigger: func(ctx context.Context, triggerID, name string, enabled bool, digest string) error {
				return s.tamper(ctx, `UPDATE qinglong.trigger_revisions tr SET name = $2, enabled = $3, content_digest = $4
					FROM qinglong.triggers tg WHERE tg.id = $1 AND tr.trigger_id = tg.id AND tr.revision = tg.current_revision`, triggerID, name, enabled, digest)
			},
			SetZone: func(ctx context.Context, triggerID, zone, digest string) error {
				return s.tamper(ctx, `UPDATE qinglong.trigger_revisions tr SET cron_timezone = $2, content_digest = $3
					FROM qinglong.triggers tg WHERE tg.id = $1 AND tr.trigger_id = tg.id AND tr.revision = tg.current_revision`, triggerID, zone, digest)
			},
			SetMisfirePolicy: func(ctx context.Context, triggerID, policy, digest string) error {
				if err := s.tamper(ctx, `ALTER TABLE qinglong.trigger_revisions DROP CONSTRAINT IF EXISTS trigger_revisions_misfire_policy_check`); err != nil {
					return err
				}
				return s.tamper(ctx, `UPDATE qinglong.trigger_revisions tr SET misfire_policy = $2, content_digest = $3
					FROM qinglong.triggers tg WHERE tg.id = $1 AND tr.trigger_id = tg.id AND tr.revision = tg.current_revision`, triggerID, policy, digest)
			},
			CorruptTaskCommand: func(ctx context.Context, taskID string, revision int64) error {
				return s.tamper(ctx, `UPDATE qinglong.task_revisions SET command = jsonb_set(command, '{args}', '["rm", "-rf", "/"]')
					WHERE task_id = $1 AND revision = $2`, taskID, revision)
			},
			SetTaskDigest: func(ctx context.Context, taskID string, revision int64, digest string) error {
				return s.tamper(ctx, `UPDATE qinglong.task_revisions SET content_digest = $3 WHERE task_id = $1 AND revision = $2`, taskID, revision, digest)
			},
			DeleteExecutions: func(ctx context.Context, taskID string) error {
				return s.tamper(ctx, `DELETE FROM qinglong.execution_revisions WHERE task_id = $1`, taskID)
			},
			CorruptExecutions: func(ctx context.Context, taskID string) error {
				return s.tamper(ctx, `UPDATE qinglong.execution_revisions SET command = jsonb_set(command, '{args}', '["rm", "-rf", "/"]') WHERE task_id = $1`, taskID)
			},
			DeleteSchedule: func(ctx context.Context, triggerID string) error {
				return s.tamper(ctx, `DELETE FROM qinglong.trigger_schedules WHERE trigger_id = $1`, triggerID)
			},
			SetPauseSpan: func(ctx context.Context, triggerID string, fromMs, untilMs int64) error {
				return s.tamper(ctx, `UPDATE qinglong.trigger_schedules SET paused_at_ms = $2, resumed_at_ms = $3 WHERE trigger_id = $1`, triggerID, fromMs, untilMs)
			},
			SeedLedger: func(ctx context.Context, triggerID string, n int) error {
				return s.tamper(ctx, `INSERT INTO qinglong.occurrence_ledger (trigger_id, seq, trigger_revision, reason, first_scheduled_at_ms,
						last_scheduled_at_ms, occurrence_count, at_least, recorded_at_ms)
					SELECT $1, n, 1, CASE n % 2 WHEN 1 THEN 'misfire' ELSE 'collapsed' END, n * 1000, n * 1000, 1, false, 1
					  FROM generate_series(1, $2::bigint) AS n`, triggerID, n)
			},
			FailQueuedEvents: func(ctx context.Context) error {
				if err := s.tamper(ctx, `CREATE FUNCTION qinglong.test_fail_queued_event() RETURNS trigger LANGUAGE plpgsql AS $$
						BEGIN IF NEW.name = 'run.queued' THEN RAISE EXCEPTION 'injected fault'; END IF; RETURN NEW; END $$`); err != nil {
					return err
				}
				return s.tamper(ctx, `CREATE TRIGGER test_fail_queued_event BEFORE INSERT ON qinglong.run_events
					FOR EACH ROW EXECUTE FUNCTION qinglong.test_fail_queued_event()`)
			},
			ReopenAttempts: func(ctx context.Context, runID string) error {
				return s.tamper(ctx, `UPDATE qinglong.attempts SET state = 'running', finished_at_ms = NULL,
					lease_token_sha256 = repeat('0', 64), lease_version = 1, lease_expires_at_ms = `+ClockMsSQL+` + 3600000 WHERE run_id = $1`, runID)
			},
			FailNotificationInserts: func(ctx context.Context) error {
				if err := s.tamper(ctx, `CREATE FUNCTION qinglong.test_fail_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
						BEGIN RAISE EXCEPTION 'injected fault'; END $$`); err != nil {
					return err
				}
				return s.tamper(ctx, `CREATE TRIGGER test_fail_outbox BEFORE INSERT ON qinglong.notification_outbox
					FOR EACH ROW EXECUTE FUNCTION qinglong.test_fail_outbox()`)
			},
		},
	}
}

// tamper edits rows as the superuser, outside both roles' contracts.
func (s *store) tamper(ctx context.Context, sql string, args ...any) error {
	_, err := s.super.Exec(ctx, sql, args...)
	return err
}

// newFixture is a store's fixture with retention over the maintenance
// role.
func newFixture(t *testing.T) storetest.Fixture {
	s := newStore(t)
	f := s.fixture()
	f.Retention = s.openMaintenance(t)
	return f
}

func TestFinishedConformance(t *testing.T) {
	t.Parallel()
	storetest.RunFinished(t, newFixture)
}

func TestRetentionConformance(t *testing.T) {
	t.Parallel()
	storetest.RunRetention(t, newFixture)
}

func TestRetryConformance(t *testing.T) {
	t.Parallel()
	storetest.RunRetry(t, newFixture)
}

// audits lists a trigger's pause audit records as the suite compares them.
func (s *store) audits(ctx context.Context, triggerID string) ([]string, error) {
	rows, err := s.super.Query(ctx, `SELECT action || ' ' || actor || ' ' || coalesce(note, '')
		FROM qinglong.trigger_schedule_audit WHERE trigger_id = $1 ORDER BY at_ms, action`, triggerID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func (s *store) row(ctx context.Context, triggerID string) (storetest.Row, error) {
	var r storetest.Row
	err := s.super.QueryRow(ctx, `SELECT trigger_revision, next_fire_at_ms, next_fire_at_ms + due_offset_ms, last_scheduled_at_ms, state_version,
		claim_owner, claim_version
		FROM qinglong.trigger_schedules WHERE trigger_id = $1`, triggerID).
		Scan(&r.TriggerRevision, &r.NextFireAtMs, &r.DueAtMs, &r.LastScheduledAtMs, &r.StateVersion, &r.ClaimOwner, &r.ClaimVersion)
	return r, err
}

func (s *store) counts(ctx context.Context, triggerID string) (storetest.Counts, error) {
	var c storetest.Counts
	err := s.super.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM qinglong.runs WHERE trigger_id = $1),
		(SELECT count(*) FROM qinglong.attempts a JOIN qinglong.runs r ON r.id = a.run_id WHERE r.trigger_id = $1),
		(SELECT count(*) FROM qinglong.run_events e JOIN qinglong.runs r ON r.id = e.run_id WHERE r.trigger_id = $1)`, triggerID).
		Scan(&c.Runs, &c.Attempts, &c.Events)
	return c, err
}

// makeDue moves an unclaimed row's cursor into the past by the database
// clock.
func (s *store) makeDue(ctx context.Context, triggerID string, lateMs int64) error {
	_, err := s.super.Exec(ctx, `UPDATE qinglong.trigger_schedules
		SET next_fire_at_ms = `+ClockMsSQL+` - $2, state_version = state_version + 1
		WHERE trigger_id = $1`, triggerID, lateMs)
	return err
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

func TestAuditConformance(t *testing.T) {
	t.Parallel()
	storetest.RunAudit(t, newFixture)
}

func TestDependencyKeyConformance(t *testing.T) {
	t.Parallel()
	storetest.RunDependencyKeys(t, newFixture)
}

func TestUserConformance(t *testing.T) {
	t.Parallel()
	storetest.RunUsers(t, newFixture)
}

func TestSessionConformance(t *testing.T) {
	t.Parallel()
	storetest.RunSessions(t, newFixture)
}

func TestNotifyConformance(t *testing.T) {
	t.Parallel()
	storetest.RunNotify(t, newFixture)
}

func TestStatusReaderConformance(t *testing.T) {
	t.Parallel()
	storetest.RunStatusReader(t, newFixture)
}

// runtimeTx begins a transaction on a connection of its own as the
// runtime role; rollback ends both, so what a measurement did in it
// (row locks, writes) is gone before the next one.
func (s *store) runtimeTx(t testing.TB) (tx pgx.Tx, rollback func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.url(RoleRuntime))
	if err != nil {
		t.Fatal(err)
	}
	tx, err = conn.Begin(ctx)
	if err != nil {
		_ = conn.Close(ctx)
		t.Fatal(err)
	}
	return tx, func() {
		_ = tx.Rollback(ctx)
		_ = conn.Close(ctx)
	}
}

// dispatchOrder is the Runs a new worker of no labels is granted by pulls
// of one grant each, in order, until n or none is left.
func (s *store) dispatchOrder(t *testing.T, n int) []string {
	t.Helper()
	w := s.newWorker(t, "dispatch-order-"+strconv.Itoa(int(s.orderWorkers.Add(1))), nil, n)
	var out []string
	for range n {
		_, grants := s.pull(t, w, 1)
		if len(grants) == 0 {
			break
		}
		out = append(out, grants[0].RunID)
	}
	return out
}
