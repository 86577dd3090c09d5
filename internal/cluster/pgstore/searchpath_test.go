package pgstore

import (
	"testing"
	"time"
)

// TestPlantedOperatorInPublicIsNeverUsed plants, as a role that is not
// QingLong's, an operator numeric * integer in public (CREATE on public
// granted to PUBLIC, the default before PostgreSQL 15) that stops the
// cluster clock at 0. The clock's expression (sqlNowMs) multiplies numeric
// by integer, and pg_catalog has only numeric * numeric, so an exact match
// anywhere on the path wins. A session with PostgreSQL's default
// search_path uses it; QingLong's connections and roles never do.
func TestPlantedOperatorInPublicIsNeverUsed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	intruder := e.intruder(t)
	e.exec(t, "GRANT CREATE, USAGE ON SCHEMA public TO PUBLIC")
	plant := e.connAs(t, intruder, "intruder-pw")
	for _, stmt := range []string{
		`CREATE FUNCTION public.frozen_clock(numeric, integer) RETURNS numeric LANGUAGE sql IMMUTABLE AS 'SELECT 0::numeric'`,
		`CREATE OPERATOR public.* (LEFTARG = numeric, RIGHTARG = integer, FUNCTION = public.frozen_clock)`,
	} {
		if _, err := plant.Exec(t.Context(), stmt); err != nil {
			t.Fatalf("planting as %s: %s: %v", intruder, stmt, err)
		}
	}

	// The fault is real: under the default search_path the runtime role
	// itself runs the planted operator.
	exposed := e.conn(t, RoleRuntime)
	if _, err := exposed.Exec(t.Context(), `SET search_path = "$user", public`); err != nil {
		t.Fatal(err)
	}
	var hijacked int64
	if err := exposed.QueryRow(t.Context(), sqlNowMs).Scan(&hijacked); err != nil {
		t.Fatal(err)
	}
	if hijacked != 0 {
		t.Fatalf("the planted operator was not used under the default search_path (clock %d); the test proves nothing", hijacked)
	}

	floor := time.Now().Add(-time.Hour).UnixMilli()
	// Each role's own setting protects a session that sets nothing.
	for _, k := range RoleKinds {
		if noLogin[k] {
			continue // no session of its own to protect
		}
		var now int64
		if err := e.conn(t, k).QueryRow(t.Context(), sqlNowMs).Scan(&now); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if now < floor {
			t.Errorf("%s role's plain session used the planted operator: clock %d", k, now)
		}
	}
	// QingLong's own connections set the path themselves.
	now, err := e.openRuntime(t, "replica-a", testLease).NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if now < floor {
		t.Fatalf("the runtime store used the planted operator: clock %d", now)
	}
	// Public is on no QingLong path, so what it allows does not matter.
	requireReadiness(t, e, RoleRuntime, "")
}

// TestConnectionsPinSearchPathWhateverTheRoleSays: with the role setting
// gone, QingLong's connections still resolve through pg_catalog only,
// while readiness refuses the role.
func TestConnectionsPinSearchPathWhateverTheRoleSays(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.exec(t, "ALTER ROLE "+quoteIdent(e.roles.Runtime)+" RESET search_path")
	r := e.openRuntime(t, "replica-a", testLease)
	var path string
	if err := r.pool.QueryRow(t.Context(), "SHOW search_path").Scan(&path); err != nil {
		t.Fatal(err)
	}
	if path != safeSearchPath {
		t.Fatalf("runtime connection search_path %q, want %q", path, safeSearchPath)
	}
	err := r.Ready(t.Context())
	if code := readinessCode(err); code != CodeUnsafeSearchPath {
		t.Fatalf("readiness with the runtime role's search_path reset: %v; want %s", err, CodeUnsafeSearchPath)
	}
}

// A server or role default of SERIALIZABLE would give the autocommit claim
// predicate locks that outlive it; connections pin READ COMMITTED, and the
// transactions that need more ask for it when they begin.
func TestConnectionsPinReadCommittedWhateverTheRoleSays(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.exec(t, "ALTER ROLE "+quoteIdent(e.roles.Runtime)+" SET default_transaction_isolation = 'serializable'")
	r := e.openRuntime(t, "replica-a", testLease)
	var level string
	if err := r.pool.QueryRow(t.Context(), "SHOW default_transaction_isolation").Scan(&level); err != nil {
		t.Fatal(err)
	}
	if level != "read committed" {
		t.Fatalf("runtime connection default_transaction_isolation %q with the role set to serializable, want read committed", level)
	}
}
