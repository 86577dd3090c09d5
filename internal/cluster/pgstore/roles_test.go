package pgstore

import (
	"strings"
	"testing"
)

// TestEachRoleHoldsExactlyItsGrants runs one statement per (role, table,
// privilege) on each role's own connection: permitted ones pass the
// privilege check, all others are denied.
func TestEachRoleHoldsExactlyItsGrants(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, k := range RoleKinds[1:] {
		conn := e.conn(t, k)
		for _, table := range grantedTables() {
			col := firstColumn(t, e, table)
			for _, priv := range []string{"SELECT", "INSERT", "UPDATE", "DELETE"} {
				allowed := false
				for _, p := range tableGrants[table][k] {
					allowed = allowed || p == priv
				}
				_, err := conn.Exec(t.Context(), privilegeProbe(priv, table, col))
				denied := err != nil && sqlState(err) == stateInsufficientPriv
				if allowed && err != nil {
					t.Errorf("%s %s on %s: want allowed, got %v", k, priv, table, err)
				}
				if !allowed && !denied {
					t.Errorf("%s %s on %s: want permission denied, got %v", k, priv, table, err)
				}
			}
		}
	}
}

func firstColumn(t *testing.T, e *env, table string) string {
	t.Helper()
	var col string
	err := e.super.QueryRow(t.Context(), `SELECT attname FROM pg_attribute WHERE attrelid = ('qinglong.' || $1)::regclass AND attnum = 1`, table).Scan(&col)
	if err != nil {
		t.Fatal(err)
	}
	return col
}

// Every role is unprivileged, and every one but worker_ingress, which
// nothing connects as, may log in.
func TestRolesAreUnprivilegedLoginRoles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, k := range RoleKinds {
		var login, super, createdb, createrole, repl, bypass bool
		err := e.super.QueryRow(t.Context(), `SELECT rolcanlogin, rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls FROM pg_roles WHERE rolname = $1`,
			e.roles.Name(k)).Scan(&login, &super, &createdb, &createrole, &repl, &bypass)
		if err != nil {
			t.Fatal(err)
		}
		if login != (k != RoleWorkerIngress) || super || createdb || createrole || repl || bypass {
			t.Fatalf("%s: login=%v super=%v createdb=%v createrole=%v replication=%v bypassrls=%v", k, login, super, createdb, createrole, repl, bypass)
		}
	}
}

func TestOnlyTheMigrationRoleCanChangeTheSchema(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, k := range RoleKinds[1:] {
		_, err := e.conn(t, k).Exec(t.Context(), "CREATE TABLE qinglong.intruder (id int)")
		if sqlState(err) != stateInsufficientPriv {
			t.Errorf("%s CREATE TABLE in the schema: want permission denied, got %v", k, err)
		}
	}
	if _, err := e.conn(t, RoleMigration).Exec(t.Context(), "CREATE TABLE qinglong.allowed (id int)"); err != nil {
		t.Fatalf("migration role CREATE TABLE: %v", err)
	}
}

func TestPasswordsReachTheServerOnlyAsVerifiers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var stored string
	if err := e.super.QueryRow(t.Context(), "SELECT rolpassword FROM pg_authid WHERE rolname = $1", e.roles.Runtime).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stored, "SCRAM-SHA-256$4096:") || strings.Contains(stored, "test-password") {
		t.Fatalf("stored password is not a SCRAM verifier: %q", stored)
	}
}

func TestEnsureRolesIsIdempotentAndRepairsDrift(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.exec(t, "GRANT DELETE ON qinglong.runs TO "+quoteIdent(e.roles.Runtime))
	requireReadiness(t, e, RoleRuntime, CodePrivilegeDrift)
	prefix := strings.TrimSuffix(e.roles.Runtime, string(RoleRuntime))
	if err := EnsureRoles(t.Context(), e.db.URL, RolesConfig{Prefix: prefix}); err != nil {
		t.Fatalf("re-running roles without passwords: %v", err)
	}
	requireReadiness(t, e, RoleRuntime, "")
}

// privilegeProbe needs exactly one privilege and touches no row (WHERE
// false): the privilege check happens before any row is read.
func privilegeProbe(priv, table, col string) string {
	switch priv {
	case "SELECT":
		return "SELECT * FROM qinglong." + table + " LIMIT 0"
	case "INSERT":
		return "INSERT INTO qinglong." + table + " (" + col + ") SELECT NULL WHERE false"
	case "UPDATE":
		return "UPDATE qinglong." + table + " SET " + col + " = " + col + " WHERE false"
	default:
		return "DELETE FROM qinglong." + table + " WHERE false"
	}
}

// The maintenance role deletes Runs, attempts, events and log chunks and
// locks them for it, and deletes an archived project's definitions with
// them (locking the project row); of everything else it may only empty an
// attempt's log_bytes, and of a token it reads no digest. The other roles
// delete none of the Runs' rows.
func TestOnlyTheMaintenanceRoleDeletesRunsAndItWritesNothingElse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	m := e.conn(t, RoleMaintenance)
	for _, q := range []string{
		"DELETE FROM qinglong.runs WHERE false", "DELETE FROM qinglong.attempts WHERE false",
		"DELETE FROM qinglong.run_events WHERE false", "DELETE FROM qinglong.run_log_chunks WHERE false",
		"SELECT id FROM qinglong.runs FOR UPDATE SKIP LOCKED", "SELECT id FROM qinglong.attempts FOR UPDATE SKIP LOCKED",
		"UPDATE qinglong.attempts SET log_bytes = 0 WHERE false",
		"DELETE FROM qinglong.trigger_schedules WHERE false", "DELETE FROM qinglong.occurrence_ledger WHERE false",
		"DELETE FROM qinglong.projects WHERE false", "SELECT id FROM qinglong.projects FOR UPDATE",
		"SELECT name, projects FROM qinglong.api_tokens WHERE revoked_at_ms IS NULL AND expires_at_ms IS NULL",
	} {
		if _, err := m.Exec(t.Context(), q); err != nil {
			t.Errorf("maintenance %q: %v, want allowed", q, err)
		}
	}
	for _, q := range []string{
		"UPDATE qinglong.runs SET state = 'succeeded' WHERE false", "UPDATE qinglong.attempts SET state = 'lost' WHERE false",
		"INSERT INTO qinglong.runs (id) SELECT NULL WHERE false", "UPDATE qinglong.run_log_chunks SET bytes = 'x' WHERE false",
		"UPDATE qinglong.trigger_schedules SET paused = paused WHERE false", "INSERT INTO qinglong.occurrence_ledger (trigger_id) SELECT NULL WHERE false",
		"UPDATE qinglong.projects SET name = name WHERE false", "UPDATE qinglong.tasks SET current_revision = current_revision WHERE false",
		"SELECT digest FROM qinglong.api_tokens", "UPDATE qinglong.api_tokens SET revoked_at_ms = 1 WHERE false",
		"SELECT * FROM qinglong.tasks", "SELECT * FROM qinglong.execution_revisions", "SELECT * FROM qinglong.projects",
		"DELETE FROM qinglong.workers WHERE false", "DELETE FROM qinglong.api_tokens WHERE false",
	} {
		if _, err := m.Exec(t.Context(), q); sqlState(err) != stateInsufficientPriv {
			t.Errorf("maintenance %q: %v, want permission denied", q, err)
		}
	}
	for _, k := range []RoleKind{RoleAdmin, RoleRuntime, RoleWorkerIngress} {
		for _, table := range []string{"runs", "attempts", "run_events", "run_log_chunks"} {
			if _, err := e.conn(t, k).Exec(t.Context(), "DELETE FROM qinglong."+table+" WHERE false"); sqlState(err) != stateInsufficientPriv {
				t.Errorf("%s DELETE FROM %s: %v, want permission denied", k, table, err)
			}
		}
	}
}

// A replica (runtime role) reads console users and writes only the time of
// a sign-in: never a role, a password, a disabled state, a new user or a
// deletion; the admin role manages them.
func TestTheRuntimeRoleWritesOnlyTheSigninTimeOfConsoleUsers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rt := e.conn(t, RoleRuntime)
	for _, q := range []string{
		"SELECT * FROM qinglong.console_users LIMIT 0",
		"UPDATE qinglong.console_users SET last_signin_at_ms = 1 WHERE false",
	} {
		if _, err := rt.Exec(t.Context(), q); err != nil {
			t.Errorf("runtime %q: %v, want allowed", q, err)
		}
	}
	for _, q := range []string{
		"UPDATE qinglong.console_users SET role = 'owner' WHERE false",
		"UPDATE qinglong.console_users SET password_hash = password_hash WHERE false",
		"UPDATE qinglong.console_users SET disabled_at_ms = NULL WHERE false",
		"INSERT INTO qinglong.console_users (id) SELECT NULL WHERE false",
		"DELETE FROM qinglong.console_users WHERE false",
	} {
		if _, err := rt.Exec(t.Context(), q); sqlState(err) != stateInsufficientPriv {
			t.Errorf("runtime %q: %v, want permission denied", q, err)
		}
	}
	if _, err := e.conn(t, RoleAdmin).Exec(t.Context(), "DELETE FROM qinglong.console_users WHERE false"); err != nil {
		t.Errorf("admin DELETE FROM console_users: %v, want allowed", err)
	}
}
