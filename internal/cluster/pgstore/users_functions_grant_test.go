package pgstore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
)

// The account functions give the runtime role their two writes and nothing
// more: it still may not insert or update console_users itself, and no
// other role, PUBLIC included, may call them.
func TestTheRuntimeRoleStillCannotWriteAccounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rt := e.conn(t, RoleRuntime)
	for _, q := range []string{
		"INSERT INTO qinglong.console_users (id, name, role, password_hash, created_at_ms) VALUES (gen_random_uuid(), 'x', 'owner', '" + testHashA + "', 0)",
		"UPDATE qinglong.console_users SET password_hash = '" + testHashB + "' WHERE false",
		"UPDATE qinglong.console_users SET role = 'owner', disabled_at_ms = NULL WHERE false",
	} {
		if _, err := rt.Exec(t.Context(), q); sqlState(err) != stateInsufficientPriv {
			t.Errorf("runtime %q: %v; want permission denied", q, err)
		}
	}
	id := ids.New()
	var created *int64
	if err := rt.QueryRow(t.Context(), sqlFirstOwnerCreate, id, "lead", testHashA).Scan(&created); err != nil || created == nil {
		t.Fatalf("runtime creating the first owner through its function: %v %v; want created", created, err)
	}
	var changed bool
	if err := rt.QueryRow(t.Context(), sqlPasswordChange, id, testHashA, testHashB).Scan(&changed); err != nil || !changed {
		t.Fatalf("runtime changing a password through its function: %v %v; want changed", changed, err)
	}
	for _, k := range []RoleKind{RoleAdmin, RoleWorkerIngress, RoleMaintenance} {
		c := e.conn(t, k)
		if _, err := c.Exec(t.Context(), sqlFirstOwnerCreate, ids.New(), "other", testHashA); sqlState(err) != stateInsufficientPriv {
			t.Errorf("%s calling the first-owner function: %v; want permission denied", k, err)
		}
		if _, err := c.Exec(t.Context(), sqlPasswordChange, id, testHashB, testHashC); sqlState(err) != stateInsufficientPriv {
			t.Errorf("%s calling the password function: %v; want permission denied", k, err)
		}
	}
	// A role of PUBLIC given the schema's USAGE meets the function's own
	// refusal, not the schema's.
	name := e.intruder(t)
	e.exec(t, "GRANT USAGE ON SCHEMA qinglong TO "+quoteIdent(name))
	intruder := e.connAs(t, name, "intruder-pw")
	if _, err := intruder.Exec(t.Context(), "SELECT qinglong.console_password_change($1, $2, $3)", id, testHashB, testHashC); sqlState(err) != stateInsufficientPriv {
		t.Errorf("a role of PUBLIC calling the password function: %v; want permission denied", err)
	}
}

// A database migrated to the account functions but whose roles were not
// re-applied (the functions owned by whoever migrated, the runtime without
// EXECUTE) is not ready: the replicas say `privilege_drift` until `ql db
// roles` runs, which hands the functions to the migration role and grants
// the runtime its EXECUTE.
func TestRerunningTheRolesGrantsTheAccountFunctionsTheMigrationAdded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, f := range []string{"console_first_owner_create(uuid, text, text)", "console_password_change(uuid, text, text)"} {
		e.exec(t, "REVOKE EXECUTE ON FUNCTION qinglong."+f+" FROM "+quoteIdent(e.roles.Runtime))
		e.exec(t, "ALTER FUNCTION qinglong."+f+" OWNER TO CURRENT_USER")
	}
	requireReadiness(t, e, RoleRuntime, CodePrivilegeDrift)
	if err := EnsureRoles(t.Context(), e.db.URL, RolesConfig{Prefix: e.prefix()}); err != nil {
		t.Fatalf("re-applying the roles: %v", err)
	}
	requireReadiness(t, e, RoleRuntime, "")
	if _, err := e.openRuntime(t, "replica-a", testLease).UsersExist(t.Context()); err != nil {
		t.Fatal(err)
	}
	var created *int64
	if err := e.conn(t, RoleRuntime).QueryRow(t.Context(), sqlFirstOwnerCreate, ids.New(), "lead", testHashA).Scan(&created); err != nil || created == nil {
		t.Fatalf("the runtime creating the first owner after `ql db roles`: %v %v", created, err)
	}
}
