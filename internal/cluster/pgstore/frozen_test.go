package pgstore

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/faults"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// frozenServerConf makes the server's shared predicate-lock table small
// (10 is PostgreSQL's minimum max_pred_locks_per_transaction; the table
// then holds about 2 × 10 × 62 backend slots = 1,240 entries), so that any
// lock footprint admissions leave behind exhausts it within a few rounds
// instead of the thousands of admissions a default server takes.
var frozenServerConf = map[string]string{
	"max_pred_locks_per_transaction": "10",
	"max_connections":                "40",
}

// frozenTriggers and frozenRounds: 320 admissions while something is
// frozen, several times what fills frozenServerConf's table at the 14
// predicate locks each that SERIALIZABLE admissions used to keep.
const (
	frozenTriggers = 32
	frozenRounds   = 10
	frozenWait     = 30 * time.Second
)

// frozenCluster is a server of the test's own with two live replicas, a
// proxy for the party that will be frozen, and frozenTriggers initialised
// triggers the live replicas admit.
type frozenCluster struct {
	*store
	replicaB *Runtime
	proxy    *faults.Proxy
	live     []string
	cfg      schedule.RoundConfig
}

func newFrozenCluster(t *testing.T) *frozenCluster {
	t.Helper()
	srv, err := pgtest.StartServer(t.Context(), pgtest.Options{ExtraConf: frozenServerConf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// t.Context is already cancelled when cleanups run.
		ctx, cancel := context.WithTimeout(context.Background(), frozenWait)
		defer cancel()
		if err := srv.Stop(ctx); err != nil {
			t.Errorf("stopping the server: %v", err)
		}
	})
	e := newEnvIn(t, &pgtest.Database{Name: "postgres", URL: srv.SuperuserURL("postgres")})
	c := &frozenCluster{
		store:    &store{env: e, admin: e.openAdmin(t), runtime: e.openRuntime(t, "replica-a", testLease)},
		replicaB: e.openRuntime(t, "replica-b", testLease),
		cfg:      schedule.RoundConfig{PageSize: schedule.MaxPageSize, GraceMs: testGraceMs, Parallel: 4, NewIDs: ids.Fill},
	}
	if c.proxy, err = faults.StartProxy(fmt.Sprintf("127.0.0.1:%d", srv.Port())); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.proxy.Close(); err != nil {
			t.Errorf("closing the proxy: %v", err)
		}
	})
	for i := range frozenTriggers {
		c.live = append(c.live, c.publish(t, fmt.Sprintf("live%02d", i)).trigger.TriggerID)
	}
	return c
}

// proxied is the URL of role through the proxy.
func (c *frozenCluster) proxied(t *testing.T, k RoleKind) string {
	t.Helper()
	u, err := c.proxy.URL(c.url(k))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// freeze arms the proxy on statement, starts fn (which must send it through
// the proxy) and returns once the client is frozen right before sending it;
// the returned channel receives fn's error after the hold is released.
func (c *frozenCluster) freeze(t *testing.T, statement string, fn func() error) (*faults.Hold, <-chan error) {
	t.Helper()
	hold := c.proxy.ArmHold(statement)
	// A test that fails while frozen must still let the frozen client
	// finish before its pool is closed.
	t.Cleanup(hold.Release)
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case <-hold.Held():
	case err := <-done:
		t.Fatalf("the client to be frozen ended (%v) before sending the statement", err)
	case <-time.After(frozenWait):
		t.Fatal("the client to be frozen never sent the statement")
	}
	return hold, done
}

// admitAroundFrozen runs frozenRounds rounds of the two live replicas,
// each round making every live trigger due, and requires every occurrence
// admitted exactly once without a single error, no predicate lock left, and
// the frozen session of role idle in the same open transaction throughout.
func (c *frozenCluster) admitAroundFrozen(t *testing.T, role string) {
	t.Helper()
	openTx := c.frozenTransaction(t, role)
	before := c.count(t, `SELECT count(*) FROM qinglong.runs WHERE trigger_id = ANY($1)`, c.live)
	admitted := 0
	for round := range frozenRounds {
		c.exec(t, `UPDATE qinglong.trigger_schedules
			SET next_fire_at_ms = `+ClockMsSQL+` - 1000, state_version = state_version + 1
			WHERE trigger_id = ANY($1)`, c.live)
		sums := make([]schedule.Summary, 2)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, rt := range []*Runtime{c.runtime, c.replicaB} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sums[i], errs[i] = schedule.Round(t.Context(), rt, c.cfg)
			}()
		}
		wg.Wait()
		got := 0
		for i := range sums {
			if errs[i] != nil || len(sums[i].Errors) > 0 {
				t.Fatalf("round %d, live replica %d, with a %s session frozen: %v, errors %v", round, i, role, errs[i], sums[i].Errors)
			}
			got += sums[i].Counts[schedule.Admitted]
		}
		if got != frozenTriggers {
			t.Fatalf("round %d admitted %d occurrences (%v, %v), want %d", round, got, sums[0].Counts, sums[1].Counts, frozenTriggers)
		}
		admitted += got
	}
	if n := c.count(t, `SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE l.mode = 'SIReadLock' AND a.usename = $1`, c.roles.Runtime); n != 0 {
		t.Errorf("runtime sessions hold %d predicate locks after %d admissions: admissions must take none", n, admitted)
	}
	if now := c.frozenTransaction(t, role); now != openTx {
		t.Fatalf("the frozen transaction did not stay open the whole time: %s, then %s", openTx, now)
	}
	want := frozenRounds * frozenTriggers
	runs := c.count(t, `SELECT count(*) FROM qinglong.runs WHERE trigger_id = ANY($1)`, c.live) - before
	if admitted != want || runs != want {
		t.Fatalf("while a %s session was frozen: %d admitted, %d new runs; want %d", role, admitted, runs, want)
	}
	orphans := c.count(t, `SELECT count(*) FROM qinglong.runs r WHERE r.trigger_id = ANY($1) AND (
			(SELECT count(*) FROM qinglong.attempts a WHERE a.run_id = r.id) <> 1 OR
			(SELECT count(*) FROM qinglong.run_events v WHERE v.run_id = r.id) <> 2)`, c.live)
	if orphans != 0 {
		t.Fatalf("%d runs lack their one attempt and two events", orphans)
	}
}

// frozenTransaction identifies the one session of role idle in an open
// transaction (pid and transaction start), failing when there is none.
func (c *frozenCluster) frozenTransaction(t *testing.T, role string) string {
	t.Helper()
	rows, err := c.super.Query(t.Context(), `SELECT pid || ' since ' || xact_start FROM pg_stat_activity
		WHERE usename = $1 AND state = 'idle in transaction'`, role)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var sessions []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 1 {
		t.Fatalf("sessions of %s idle in transaction: [%s], want exactly the frozen one", role, strings.Join(sessions, "; "))
	}
	return sessions[0]
}

func (s *store) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := s.super.QueryRow(t.Context(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// TestFrozenAdmissionDoesNotStallTheOtherReplicas: a replica frozen in the
// middle of an admission — its transaction open, the row locked, the write
// not yet sent, as when the process is stopped or its network partitioned
// — must not stop the other replicas: they keep admitting every occurrence
// with no error at all (a SERIALIZABLE admission made them fail with 53200
// "out of shared memory" within a few rounds). Once resumed, the frozen
// admission still completes, exactly once.
func TestFrozenAdmissionDoesNotStallTheOtherReplicas(t *testing.T) {
	t.Parallel()
	c := newFrozenCluster(t)
	// The frozen session must outlive the runtime role's idle bound, which
	// would otherwise end it within seconds (TestIdleInTransactionRuntime-
	// SessionIsEnded): the point here is what the others do while it is open.
	frozen, err := OpenRuntime(t.Context(), c.proxied(t, RoleRuntime), RuntimeConfig{
		Owner: "replica-frozen", Lease: testLease, RolePrefix: c.prefix(), unboundedIdle: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(frozen.Close)
	victim := c.publish(t, "frozen").trigger.TriggerID
	if sum, err := schedule.Round(t.Context(), c.runtime, c.cfg); err != nil || sum.Counts[schedule.Initialized] != frozenTriggers+1 {
		t.Fatalf("initialising round: %v %v %v", sum.Counts, sum.Errors, err)
	}
	if err := c.makeDue(t.Context(), victim, 1_000); err != nil {
		t.Fatal(err)
	}
	tks := c.takeAll(t, frozen)
	if len(tks) != 1 || tks[0].TriggerID != victim {
		t.Fatalf("the frozen replica took %d tickets, want the one of trigger %s", len(tks), victim)
	}
	p := params(t, tks[0])
	var res schedule.CommitResult
	hold, done := c.freeze(t, sqlCommitWrite, func() error {
		var err error
		res, err = frozen.ScheduleCommit(t.Context(), p)
		return err
	})

	c.admitAroundFrozen(t, c.roles.Runtime)

	hold.Release()
	if err := <-done; err != nil || res.Outcome != schedule.Admitted {
		t.Fatalf("the resumed admission: %+v, %v; want admitted", res, err)
	}
	if n := c.count(t, `SELECT count(*) FROM qinglong.runs WHERE trigger_id = $1`, victim); n != 1 {
		t.Fatalf("the resumed admission left %d runs of its trigger, want 1", n)
	}
}

// TestFrozenPublishDoesNotStallAdmissions: a publishing transaction is
// SERIALIZABLE, and one frozen half-way (here a trigger publish stopped
// before upserting its schedule row) must not stop admissions either.
func TestFrozenPublishDoesNotStallAdmissions(t *testing.T) {
	t.Parallel()
	c := newFrozenCluster(t)
	if sum, err := schedule.Round(t.Context(), c.runtime, c.cfg); err != nil || sum.Counts[schedule.Initialized] != frozenTriggers {
		t.Fatalf("initialising round: %v %v %v", sum.Counts, sum.Errors, err)
	}
	// As OpenAdmin, but without the admin role's idle-in-transaction bound,
	// which would end the frozen publish within seconds: the point here is
	// what admissions do while it is open.
	pool, err := openPool(t.Context(), c.proxied(t, RoleAdmin), adminPoolSize, 0, adminStatementTimeout, 0)
	if err != nil {
		t.Fatal(err)
	}
	admin := &Admin{pool: pool}
	t.Cleanup(admin.Close)
	svc := catalog.Service{Store: admin, Executor: task.RemoteWorker, NowMs: func() int64 { return time.Now().UnixMilli() }}
	d := c.publish(t, "frozen")
	now, err := c.runtime.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	hold, done := c.freeze(t, sqlSchedulesUpsert, func() error {
		_, _, err := svc.PublishTrigger(t.Context(), d.project.ID, ids.New(), d.task, 0, ids.New(),
			trigger.Spec{Name: "late", Enabled: true, Cron: storetest.QuietCron(now)})
		return err
	})

	c.admitAroundFrozen(t, c.roles.Admin)

	hold.Release()
	if err := <-done; err != nil {
		t.Fatalf("the resumed publish: %v", err)
	}
}
