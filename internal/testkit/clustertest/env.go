// Package clustertest sets up a migrated PostgreSQL database with its own
// five QingLong roles for the cluster profile's tests, on pgtest's private
// server. Tests using it need func TestMain(m *testing.M) { pgtest.Main(m) }.
package clustertest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// Env is one migrated database with roles unique to the test (roles are
// server-wide and tests run in parallel).
type Env struct {
	DB     *pgtest.Database
	Prefix string
	// Super is a superuser pool for observing and arranging state outside
	// the roles' contracts.
	Super *pgxpool.Pool
	admin *pgstore.Admin
	once  sync.Once
}

// New migrates a fresh database on the shared server and installs the
// five roles.
func New(t testing.TB) *Env {
	t.Helper()
	return withRoles(t, pgtest.NewPreparedDatabase(t, migratedTemplate, migrateEmpty))
}

// migratedTemplate names the template database every Env is copied from:
// an empty database the migrations have run in.
const migratedTemplate = "clustertest migrated"

func migrateEmpty(ctx context.Context, url string) error {
	_, err := pgstore.Migrate(ctx, url, nil)
	return err
}

// NewOn is New on a server of the test's own, for tests that stop or
// restart it.
func NewOn(t testing.TB, srv *pgtest.Srv) *Env {
	t.Helper()
	return withRoles(t, srv.NewPreparedDatabase(t, migratedTemplate, migrateEmpty))
}

// withRoles installs a fresh set of roles in a migrated database.
func withRoles(t testing.TB, db *pgtest.Database) *Env {
	t.Helper()
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	prefix := "t" + hex.EncodeToString(b) + "_"
	cfg := pgstore.RolesConfig{Prefix: prefix, Passwords: map[pgstore.RoleKind]string{}}
	for _, k := range pgstore.RoleKinds {
		cfg.Passwords[k] = "test-password-" + string(k)
	}
	if err := pgstore.EnsureRoles(t.Context(), db.URL, cfg); err != nil {
		t.Fatalf("roles: %v", err)
	}
	return &Env{DB: db, Prefix: prefix, Super: db.Pool(t)}
}

// URL connects as one of the env's roles.
func (e *Env) URL(k pgstore.RoleKind) string {
	u, err := url.Parse(e.DB.URL)
	if err != nil {
		panic(err)
	}
	u.User = url.UserPassword(pgstore.RoleNames(e.Prefix).Name(k), "test-password-"+string(k))
	return u.String()
}

// Runtime opens a runtime-role store for one replica, closed on cleanup.
func (e *Env) Runtime(t testing.TB, owner string, lease time.Duration) *pgstore.Runtime {
	t.Helper()
	r, err := pgstore.OpenRuntime(t.Context(), e.URL(pgstore.RoleRuntime), pgstore.RuntimeConfig{Owner: owner, Lease: lease, RolePrefix: e.Prefix})
	if err != nil {
		t.Fatalf("open runtime: %v", err)
	}
	t.Cleanup(r.Close)
	return r
}

func (e *Env) adminStore(t testing.TB) *pgstore.Admin {
	t.Helper()
	e.once.Do(func() {
		a, err := pgstore.OpenAdmin(context.Background(), e.URL(pgstore.RoleAdmin))
		if err != nil {
			t.Fatalf("open admin: %v", err)
		}
		t.Cleanup(a.Close)
		e.admin = a
	})
	return e.admin
}

// Apply publishes definitions documents through the admin role, in order.
func (e *Env) Apply(t testing.TB, docs ...string) {
	t.Helper()
	svc := catalog.Service{Store: e.adminStore(t), Executor: task.RemoteWorker, NowMs: func() int64 { return time.Now().UnixMilli() }}
	for i, yaml := range docs {
		doc, err := apply.Parse(fmt.Sprintf("doc%d.yaml", i), []byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := apply.Apply(context.Background(), svc, doc, ids.New); err != nil {
			t.Fatalf("apply: %v", err)
		}
	}
}

// QuietCron is an expression that cannot fire by itself during a test
// (storetest.QuietCron at the current time): its triggers run only when the
// test makes them due, so a minute boundary passing mid-test adds nothing.
func QuietCron() string {
	return storetest.QuietCron(time.Now().UnixMilli()).Expression
}

// Triggers returns a definitions document of one project with n triggers
// t00000… on cron expression expr (UTC, fire_once).
func Triggers(project string, n int, expr string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "project: %s\ntasks:\n  - name: job\n    script: echo hi\ntriggers:\n", project)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - {name: t%05d, task: job, cron: %q, timezone: UTC}\n", i, expr)
	}
	return b.String()
}

// MakeDue moves every schedule row's cursor lateMs into the past by the
// database clock, as if the rows had been initialised earlier. Like a
// republish it also drops any claim: a replica that claimed a row just
// before (to initialise it) fails its fence on the new state version, and
// a claim left in place would hide the row from every claimer until the
// lease expired.
func (e *Env) MakeDue(t testing.TB, lateMs int64) {
	t.Helper()
	e.Exec(t, `UPDATE qinglong.trigger_schedules
		SET next_fire_at_ms = `+pgstore.ClockMsSQL+` - $1, state_version = state_version + 1,
		    claim_owner = NULL, claim_token = NULL, claim_expires_at_ms = NULL, claim_version = claim_version + 1`, lateMs)
}

// Exec runs one statement as the superuser.
func (e *Env) Exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	if _, err := e.Super.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// Int runs a query returning one integer, as the superuser.
func (e *Env) Int(t testing.TB, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := e.Super.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// Occurrences are the durable facts of every admitted occurrence.
type Occurrences struct {
	// Events counts the events admission and execution wrote, not the
	// run.waiting a replica's sweep adds to a queued Run no worker could
	// take (every Run, while no worker is connected).
	Runs, Attempts, Events int64
	// Duplicates counts (trigger, scheduled time) pairs with more than one Run.
	Duplicates int64
	// Malformed counts Runs without exactly one Attempt and two such events.
	Malformed int64
}

// Count reads the occurrence facts.
func (e *Env) Count(t testing.TB) Occurrences {
	t.Helper()
	var o Occurrences
	err := e.Super.QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM qinglong.runs),
		(SELECT count(*) FROM qinglong.attempts),
		(SELECT count(*) FROM qinglong.run_events WHERE name <> 'run.waiting'),
		(SELECT count(*) FROM (SELECT 1 FROM qinglong.runs GROUP BY trigger_id, scheduled_for_ms HAVING count(*) > 1) d),
		(SELECT count(*) FROM qinglong.runs r
		  WHERE (SELECT count(*) FROM qinglong.attempts a WHERE a.run_id = r.id) <> 1
		     OR (SELECT count(*) FROM qinglong.run_events ev WHERE ev.run_id = r.id AND ev.name <> 'run.waiting') <> 2)`).
		Scan(&o.Runs, &o.Attempts, &o.Events, &o.Duplicates, &o.Malformed)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// Token creates an API token through the admin role and returns its secret.
func (e *Env) Token(t testing.TB, name string, scope apitoken.Scope) string {
	t.Helper()
	secret, _, err := apitoken.Create(t.Context(), e.adminStore(t), "tester", ids.New(), name, scope, 0)
	if err != nil {
		t.Fatalf("create token %s: %v", name, err)
	}
	return secret
}

// SeedFinished copies an admitted Run n times as succeeded Runs that
// finished ago (by the database clock), each with one ended attempt
// holding logBytes of log in one chunk and three events; their
// idempotency keys start with "seed:". It needs one admitted Run.
func (e *Env) SeedFinished(t testing.TB, n int, ago time.Duration, logBytes int) {
	t.Helper()
	e.Exec(t, `WITH t AS (SELECT * FROM qinglong.runs WHERE idempotency_key NOT LIKE 'seed:%' ORDER BY id LIMIT 1),
new AS (SELECT gen_random_uuid() AS run_id, gen_random_uuid() AS attempt_id, `+pgstore.ClockMsSQL+` - $2::bigint AS at FROM generate_series(1, $1::int)),
r AS (INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
        idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, finished_at_ms)
      SELECT n.run_id, t.project_id, t.task_id, t.task_revision, t.trigger_id, t.trigger_revision, t.execution_revision_id,
        'seed:' || n.run_id, n.at, 'succeeded', 4, 3, n.at, n.at, n.at, n.at FROM new n, t),
a AS (INSERT INTO qinglong.attempts (id, run_id, number, executor, state, created_at_ms, updated_at_ms, started_at_ms, finished_at_ms, exit_code, log_bytes)
      SELECT attempt_id, run_id, 1, 'remote_worker', 'succeeded', at, at, at, at, 0, $3::bigint FROM new),
e AS (INSERT INTO qinglong.run_events (run_id, seq, name, payload, created_at_ms)
      SELECT n.run_id, s.seq, s.name, '{}', n.at FROM new n, (VALUES (1, 'run.created'), (2, 'run.queued'), (3, 'run.succeeded')) s (seq, name))
INSERT INTO qinglong.run_log_chunks (attempt_id, log_offset, bytes, created_at_ms)
SELECT attempt_id, 0, convert_to(repeat('x', $3::int), 'UTF8'), at FROM new WHERE $3::int > 0`, n, ago.Milliseconds(), logBytes)
}
