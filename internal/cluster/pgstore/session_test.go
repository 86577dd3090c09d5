package pgstore

import (
	"context"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// TestIdleInTransactionRuntimeSessionIsEnded stands for a replica frozen
// with its transaction open: the server itself ends the backend within the
// runtime connection's idle bound, releasing what the transaction pinned.
func TestIdleInTransactionRuntimeSessionIsEnded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const lease = time.Second
	_, idle := runtimeBounds(lease)
	r := e.openRuntime(t, "replica-a", lease)
	conn, err := r.pool.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	var pid int
	if _, err := conn.Exec(t.Context(), "BEGIN ISOLATION LEVEL SERIALIZABLE"); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(t.Context(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	var state string
	if err := e.super.QueryRow(t.Context(), "SELECT state FROM pg_stat_activity WHERE pid = $1", pid).Scan(&state); err != nil || state != "idle in transaction" {
		t.Fatalf("backend %d: state %q, %v; want idle in transaction", pid, state, err)
	}
	start := time.Now()
	// Generous against a loaded machine, far below what an unbounded
	// session would need (forever).
	deadline := start.Add(idle + 10*time.Second)
	for {
		var alive bool
		if err := e.super.QueryRow(t.Context(), "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1)", pid).Scan(&alive); err != nil {
			t.Fatal(err)
		}
		if !alive {
			t.Logf("backend %d ended %s after going idle in its transaction (bound %s)", pid, time.Since(start).Round(time.Millisecond), idle)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("backend %d still open %s after going idle in a transaction; the bound is %s", pid, time.Since(start), idle)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := conn.Exec(t.Context(), "SELECT 1"); err == nil {
		t.Fatal("the ended session still answers")
	}
}

// TestSessionsCarryTheirBounds reads the settings of each role's plain
// session (the role's own settings) and of the runtime store's connection
// (set on connect, lowered to half a short lease).
func TestSessionsCarryTheirBounds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	show := func(c interface {
		QueryRow(context.Context, string, ...any) pgx.Row
	}, name string) string {
		t.Helper()
		var v string
		if err := c.QueryRow(t.Context(), "SELECT current_setting($1)", name).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	// worker_ingress may not log in: it has no session for its settings.
	want := map[RoleKind]map[string]string{
		RoleMigration:   {"search_path": safeSearchPath, settingStatementTimeout: "0", settingIdleTimeout: "0"},
		RoleAdmin:       {"search_path": safeSearchPath, settingStatementTimeout: "30s", settingIdleTimeout: "10s"},
		RoleRuntime:     {"search_path": safeSearchPath, settingStatementTimeout: "10s", settingIdleTimeout: "5s"},
		RoleMaintenance: {"search_path": safeSearchPath, settingStatementTimeout: "1min", settingIdleTimeout: "10s"},
	}
	for k, settings := range want {
		c := e.conn(t, k)
		for name, v := range settings {
			if got := show(c, name); got != v {
				t.Errorf("%s role session: %s = %q, want %q", k, name, got, v)
			}
		}
	}
	r := e.openRuntime(t, "replica-a", 3*time.Second)
	for name, v := range map[string]string{
		"search_path": safeSearchPath, settingStatementTimeout: "1500ms", settingIdleTimeout: "1500ms",
		"tcp_keepalives_idle": "10", "tcp_keepalives_interval": "5", "tcp_keepalives_count": "3", "tcp_user_timeout": "25000",
	} {
		if got := show(r.pool, name); got != v {
			t.Errorf("runtime store connection: %s = %q, want %q", name, got, v)
		}
	}
}

// TestEnsureRolesRevokesMembershipsAndRestoresSettings: `ql db roles`
// repairs what readiness refuses — memberships in both directions, a
// search_path override for this database, a disabled timeout — and says
// which memberships it revoked.
func TestEnsureRolesRevokesMembershipsAndRestoresSettings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	intruder := e.intruder(t)
	// The intruder's membership is granted by a third role, which holds
	// its own with ADMIN OPTION (from PostgreSQL 16 on, two grantors).
	helper := e.roles.Runtime[:len(e.roles.Runtime)-len(RoleRuntime)] + "helper"
	e.exec(t, "CREATE ROLE "+quoteIdent(helper))
	e.exec(t, "GRANT "+quoteIdent(e.roles.Admin)+" TO "+quoteIdent(helper)+" WITH ADMIN OPTION")
	e.exec(t, "SET ROLE "+quoteIdent(helper)+"; GRANT "+quoteIdent(e.roles.Admin)+" TO "+quoteIdent(intruder)+"; RESET ROLE")
	e.exec(t, "GRANT pg_read_all_data TO "+quoteIdent(e.roles.Runtime))
	e.exec(t, "ALTER ROLE "+quoteIdent(e.roles.Runtime)+" IN DATABASE "+quoteIdent(e.db.Name)+" SET search_path = public")
	e.exec(t, "ALTER ROLE "+quoteIdent(e.roles.Admin)+" SET idle_in_transaction_session_timeout = 0")
	requireReadiness(t, e, RoleRuntime, CodePrivilegeDrift)
	var lines []string
	prefix := e.roles.Runtime[:len(e.roles.Runtime)-len(RoleRuntime)]
	if err := EnsureRoles(t.Context(), e.db.URL, RolesConfig{Prefix: prefix, Log: func(l string) { lines = append(lines, l) }}); err != nil {
		t.Fatal(err)
	}
	requireReadiness(t, e, RoleRuntime, "")
	wantLines := []string{
		"revoked membership: " + helper + " was a member of " + e.roles.Admin,
		"revoked membership: " + intruder + " was a member of " + e.roles.Admin,
		"revoked membership: " + e.roles.Runtime + " was a member of pg_read_all_data",
	}
	slices.Sort(lines)
	slices.Sort(wantLines)
	if !slices.Equal(lines, wantLines) {
		t.Fatalf("EnsureRoles reported %q, want %q", lines, wantLines)
	}
}

// TestWorkerIngressHoldsExactlyConnectAndUsage lists every privilege,
// ownership and membership naming the worker_ingress role anywhere in the
// database: it may connect and use the schema, nothing else.
func TestWorkerIngressHoldsExactlyConnectAndUsage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rows, err := e.super.Query(t.Context(), `
WITH me AS (SELECT oid FROM pg_roles WHERE rolname = $1)
SELECT line FROM (
    SELECT 'database ' || a.privilege_type AS line
      FROM pg_database d, aclexplode(d.datacl) a WHERE a.grantee = (SELECT oid FROM me) AND d.datname = current_database()
    UNION ALL
    SELECT 'schema ' || n.nspname || ' ' || a.privilege_type
      FROM pg_namespace n, aclexplode(n.nspacl) a WHERE a.grantee = (SELECT oid FROM me)
    UNION ALL
    SELECT 'relation ' || c.oid::regclass::text || ' ' || a.privilege_type
      FROM pg_class c, aclexplode(c.relacl) a WHERE a.grantee = (SELECT oid FROM me)
    UNION ALL
    SELECT 'column ' || c.oid::regclass::text || '.' || att.attname || ' ' || a.privilege_type
      FROM pg_attribute att JOIN pg_class c ON c.oid = att.attrelid, aclexplode(att.attacl) a WHERE a.grantee = (SELECT oid FROM me)
    UNION ALL
    SELECT 'function ' || p.oid::regprocedure::text || ' ' || a.privilege_type
      FROM pg_proc p, aclexplode(p.proacl) a WHERE a.grantee = (SELECT oid FROM me)
    UNION ALL
    SELECT 'owns ' || c.oid::regclass::text FROM pg_class c WHERE c.relowner = (SELECT oid FROM me)
    UNION ALL
    SELECT 'member of ' || pg_get_userbyid(m.roleid) FROM pg_auth_members m WHERE m.member = (SELECT oid FROM me)
    UNION ALL
    SELECT 'has member ' || pg_get_userbyid(m.member) FROM pg_auth_members m WHERE m.roleid = (SELECT oid FROM me)
) l ORDER BY line`, e.roles.WorkerIngress)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"database CONNECT", "schema qinglong USAGE"}
	if !slices.Equal(got, want) {
		t.Fatalf("worker_ingress holds %q, want exactly %q", got, want)
	}
}

// TestReadinessRejectsTooFewPredicateLocks starts a server of its own with
// max_pred_locks_per_transaction below PostgreSQL's default (a setting that
// needs a restart): everything else is right, and readiness still refuses.
func TestReadinessRejectsTooFewPredicateLocks(t *testing.T) {
	t.Parallel()
	pgtest.Server(t) // skips or fails, as every database test, without PostgreSQL
	srv, err := pgtest.StartServer(t.Context(), pgtest.Options{ExtraConf: map[string]string{"max_pred_locks_per_transaction": "32"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	super := srv.SuperuserURL("postgres")
	if _, err := Migrate(t.Context(), super, nil); err != nil {
		t.Fatal(err)
	}
	if err := EnsureRoles(t.Context(), super, RolesConfig{Passwords: map[RoleKind]string{
		RoleMigration: "test-password-m", RoleAdmin: "test-password-a", RoleRuntime: "test-password-r", RoleWorkerIngress: "test-password-w",
		RoleMaintenance: "test-password-x",
	}}); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(super)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(RoleNames("").Runtime, "test-password-r")
	err = Check(t.Context(), u.String(), RoleNames(""))
	if code := readinessCode(err); code != CodeServerSettingTooSmall {
		t.Fatalf("readiness with max_pred_locks_per_transaction = 32: %v; want %s", err, CodeServerSettingTooSmall)
	}
}

func TestParsePGDuration(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{
		"0": 0, "5000": 5 * time.Second, "10s": 10 * time.Second, "1.5min": 90 * time.Second,
		"250ms": 250 * time.Millisecond, "1h": time.Hour, "2 d": 48 * time.Hour, "500us": 500 * time.Microsecond,
	} {
		if got, err := parsePGDuration(in); err != nil || got != want {
			t.Errorf("parsePGDuration(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "s", "10 fortnights", "ten"} {
		if _, err := parsePGDuration(in); err == nil {
			t.Errorf("parsePGDuration(%q): want an error", in)
		}
	}
}
