package pgstore

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

func requireReadiness(t *testing.T, e *env, role RoleKind, code string) {
	t.Helper()
	err := Check(t.Context(), e.url(role), e.roles)
	if code == "" {
		if err != nil {
			t.Fatalf("readiness as %s: %v", role, err)
		}
		return
	}
	var re *ReadinessError
	if !errors.As(err, &re) {
		t.Fatalf("readiness as %s: want code %s, got %v", role, code, err)
	}
	if re.Code != code {
		t.Fatalf("readiness as %s: want code %s, got %s (%v)", role, code, re.Code, err)
	}
	if re.Message() == "" {
		t.Fatalf("code %s has no human message", code)
	}
}

// readinessCode is the code of a *ReadinessError, "" for nil and
// "(not a readiness error)" for anything else.
func readinessCode(err error) string {
	var re *ReadinessError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &re):
		return re.Code
	}
	return "(not a readiness error)"
}

func TestReadinessPassesOnAFreshInstallForEveryRole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, k := range []RoleKind{RoleMigration, RoleAdmin, RoleRuntime, RoleMaintenance} {
		requireReadiness(t, e, k, "")
	}
}

// A role that may connect but not read the migration history is refused
// as a role that may not (never as a server that cannot be reached),
// which a command refuses as its credential, exit 5, naming the runtime
// role once.
func TestReadinessAsARoleThatMayOnlyConnectNamesTheRuntimeRole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	name := e.intruder(t)
	e.exec(t, "GRANT USAGE ON SCHEMA qinglong TO "+quoteIdent(name))
	u, err := url.Parse(e.db.URL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(name, "intruder-pw")
	err = ForCommand(Check(t.Context(), u.String(), e.roles))
	if !qlerror.Is(err, qlerror.PermissionDenied) || !strings.Contains(err.Error(), "the runtime role here is "+e.roles.Runtime) || strings.Contains(err.Error(), "cannot be reached") {
		t.Fatalf("readiness as a role that may only connect, for a command: %v; want permission denied naming the runtime role, not an unreachable server", err)
	}
	if n := strings.Count(err.Error(), "connect as"); n != 1 {
		t.Errorf("readiness as a role that may only connect: %q says \"connect as\" %d times, want once", err, n)
	}
}

func TestReadinessFailsClosedOnEachTamperedItem(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		tamper func(t *testing.T, e *env)
		code   string
	}{
		{"read-only database", func(t *testing.T, e *env) {
			e.exec(t, "ALTER DATABASE "+quoteIdent(e.db.Name)+" SET default_transaction_read_only = on")
		}, CodeReadOnly},
		{"edited history checksum", func(t *testing.T, e *env) {
			e.exec(t, "UPDATE qinglong.schema_migrations SET checksum = 'sha256:' || repeat('0', 64) WHERE seq = 1")
		}, CodeHistoryMismatch},
		{"newer migration recorded", func(t *testing.T, e *env) {
			e.exec(t, "INSERT INTO qinglong.schema_migrations VALUES (9999, 'pg-9999-from-the-future', 'sha256:' || repeat('1', 64), 0)")
		}, CodeHistoryAhead},
		{"missing migration", func(t *testing.T, e *env) {
			e.exec(t, "DELETE FROM qinglong.schema_migrations")
		}, CodeHistoryBehind},
		{"capability row changed", func(t *testing.T, e *env) {
			e.exec(t, "UPDATE qinglong.schema_capability SET version = 7")
		}, CodeCapabilityMismatch},
		{"dropped claim index", func(t *testing.T, e *env) {
			e.exec(t, "DROP INDEX qinglong.trigger_schedules_unclaimed_order_idx")
		}, CodeSchemaDrift},
		{"added column", func(t *testing.T, e *env) {
			e.exec(t, "ALTER TABLE qinglong.runs ADD COLUMN note text")
		}, CodeSchemaDrift},
		{"dropped check constraint", func(t *testing.T, e *env) {
			e.exec(t, "ALTER TABLE qinglong.trigger_schedules DROP CONSTRAINT trigger_schedules_claim_shape")
		}, CodeSchemaDrift},
		{"one grant too many", func(t *testing.T, e *env) {
			e.exec(t, "GRANT INSERT ON qinglong.trigger_schedules TO "+quoteIdent(e.roles.Runtime))
		}, CodePrivilegeDrift},
		{"one grant too few", func(t *testing.T, e *env) {
			e.exec(t, "REVOKE UPDATE ON qinglong.trigger_schedules FROM "+quoteIdent(e.roles.Runtime))
		}, CodePrivilegeDrift},
		{"PUBLIC granted on a table", func(t *testing.T, e *env) {
			e.exec(t, "GRANT SELECT ON qinglong.projects TO PUBLIC")
		}, CodePrivilegeDrift},
		{"column grant", func(t *testing.T, e *env) {
			e.exec(t, "GRANT SELECT (id) ON qinglong.projects TO "+quoteIdent(e.roles.WorkerIngress))
		}, CodePrivilegeDrift},
		{"role made superuser", func(t *testing.T, e *env) {
			e.exec(t, "ALTER ROLE "+quoteIdent(e.roles.Admin)+" CREATEROLE")
		}, CodePrivilegeDrift},
		{"table owned by another role", func(t *testing.T, e *env) {
			e.exec(t, "ALTER TABLE qinglong.runs OWNER TO "+quoteIdent(e.roles.Admin))
		}, CodePrivilegeDrift},
		{"another role made a member of the admin role", func(t *testing.T, e *env) {
			e.exec(t, "GRANT "+quoteIdent(e.roles.Admin)+" TO "+quoteIdent(e.intruder(t)))
		}, CodePrivilegeDrift},
		{"one QingLong role made a member of another", func(t *testing.T, e *env) {
			e.exec(t, "GRANT "+quoteIdent(e.roles.Admin)+" TO "+quoteIdent(e.roles.WorkerIngress))
		}, CodePrivilegeDrift},
		{"runtime role made a member of a predefined role", func(t *testing.T, e *env) {
			e.exec(t, "GRANT pg_read_all_data TO "+quoteIdent(e.roles.Runtime))
		}, CodePrivilegeDrift},
		{"table grant outside the schema", func(t *testing.T, e *env) {
			e.exec(t, "CREATE TABLE public.elsewhere (id int)")
			e.exec(t, "GRANT SELECT ON public.elsewhere TO "+quoteIdent(e.roles.WorkerIngress))
		}, CodePrivilegeDrift},
		{"function grant", func(t *testing.T, e *env) {
			e.exec(t, "GRANT EXECUTE ON FUNCTION pg_catalog.pg_read_file(text) TO "+quoteIdent(e.roles.Runtime))
		}, CodePrivilegeDrift},
		{"account function not granted to the runtime (roles not re-applied after the migration)", func(t *testing.T, e *env) {
			e.exec(t, "REVOKE EXECUTE ON FUNCTION qinglong.console_password_change(uuid, text, text) FROM "+quoteIdent(e.roles.Runtime))
		}, CodePrivilegeDrift},
		{"account function granted to PUBLIC", func(t *testing.T, e *env) {
			e.exec(t, "GRANT EXECUTE ON FUNCTION qinglong.console_first_owner_create(uuid, text, text) TO PUBLIC")
		}, CodePrivilegeDrift},
		{"account function granted to another QingLong role", func(t *testing.T, e *env) {
			e.exec(t, "GRANT EXECUTE ON FUNCTION qinglong.console_first_owner_create(uuid, text, text) TO "+quoteIdent(e.roles.WorkerIngress))
		}, CodePrivilegeDrift},
		{"account function owned by another role", func(t *testing.T, e *env) {
			e.exec(t, "ALTER FUNCTION qinglong.console_password_change(uuid, text, text) OWNER TO "+quoteIdent(e.intruder(t)))
		}, CodePrivilegeDrift},
		{"role search_path removed", func(t *testing.T, e *env) {
			e.exec(t, "ALTER ROLE "+quoteIdent(e.roles.Runtime)+" RESET search_path")
		}, CodeUnsafeSearchPath},
		{"role search_path puts public first", func(t *testing.T, e *env) {
			e.exec(t, "ALTER ROLE "+quoteIdent(e.roles.Admin)+" SET search_path = public, pg_catalog")
		}, CodeUnsafeSearchPath},
		{"role search_path overridden for this database", func(t *testing.T, e *env) {
			e.exec(t, "ALTER ROLE "+quoteIdent(e.roles.Migration)+" IN DATABASE "+quoteIdent(e.db.Name)+` SET search_path = "$user", public`)
		}, CodeUnsafeSearchPath},
		{"PUBLIC may create in the schema", func(t *testing.T, e *env) {
			e.exec(t, "GRANT CREATE ON SCHEMA qinglong TO PUBLIC")
		}, CodeUnsafeSearchPath},
		{"another role may create in the schema", func(t *testing.T, e *env) {
			e.exec(t, "GRANT CREATE ON SCHEMA qinglong TO "+quoteIdent(e.intruder(t)))
		}, CodeUnsafeSearchPath},
		{"another role may create in pg_catalog", func(t *testing.T, e *env) {
			e.exec(t, "GRANT CREATE ON SCHEMA pg_catalog TO "+quoteIdent(e.intruder(t)))
		}, CodeUnsafeSearchPath},
		{"runtime statement timeout removed", func(t *testing.T, e *env) {
			e.exec(t, "ALTER ROLE "+quoteIdent(e.roles.Runtime)+" RESET statement_timeout")
		}, CodeUnboundedSession},
		{"runtime idle-in-transaction timeout disabled", func(t *testing.T, e *env) {
			e.exec(t, "ALTER ROLE "+quoteIdent(e.roles.Runtime)+" SET idle_in_transaction_session_timeout = 0")
		}, CodeUnboundedSession},
		{"admin idle-in-transaction timeout too large", func(t *testing.T, e *env) {
			e.exec(t, "ALTER ROLE "+quoteIdent(e.roles.Admin)+" SET idle_in_transaction_session_timeout = '1h'")
		}, CodeUnboundedSession},
		{"runtime statement timeout too large for this database", func(t *testing.T, e *env) {
			e.exec(t, "ALTER ROLE "+quoteIdent(e.roles.Runtime)+" IN DATABASE "+quoteIdent(e.db.Name)+" SET statement_timeout = 60000")
		}, CodeUnboundedSession},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			requireReadiness(t, e, RoleRuntime, "")
			c.tamper(t, e)
			requireReadiness(t, e, RoleRuntime, c.code)
		})
	}
}

// A role prefix naming roles that do not exist is told apart from a drift
// of real roles: the refusal says the prefix is likely wrong and which
// prefix the session's own role has.
func TestAWrongRolePrefixNamesTheLikelyOne(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	err := Check(t.Context(), e.url(RoleRuntime), RoleNames("qx_"))
	var re *ReadinessError
	if !errors.As(err, &re) || re.Code != CodePrivilegeDrift || !strings.Contains(re.Detail, "none of the roles qx_migration") ||
		!strings.Contains(re.Detail, "give --role-prefix "+e.prefix()) {
		t.Fatalf("readiness with role prefix qx_: %v; want a privilege drift naming the missing roles and the prefix %s", err, e.prefix())
	}
	requireReadiness(t, e, RoleRuntime, "")
}

// The privilege check audits the QingLong roles' grants, not who
// connects: a runtime connection (a replica's, `ql db check`'s) as a role
// that may do more than the runtime role is refused with what it may do.
func TestARuntimeConnectionAsARoleMorePowerfulThanTheRuntimeRoleIsNotReady(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// The runtime role itself is ready; a replica's own readiness refuses
	// the superuser as `ql db check` does (the cases below change the
	// grants, so these come first).
	if err := CheckRuntime(t.Context(), e.url(RoleRuntime), e.roles); err != nil {
		t.Fatalf("runtime readiness as the runtime role: %v", err)
	}
	if err := e.openRuntime(t, "replica-a", testLease).Ready(t.Context()); err != nil {
		t.Fatalf("replica readiness as the runtime role: %v", err)
	}
	if err := e.openRuntimeAt(t, e.db.URL, "replica-super", testLease).Ready(t.Context()); readinessCode(err) != CodeRoleTooPowerful {
		t.Fatalf("replica readiness as the superuser: %v; want %s", err, CodeRoleTooPowerful)
	}
	// other is a LOGIN role of the env's prefix, changed by the statement
	// given (its name in %[1]s), and the URL connecting as it.
	other := func(t *testing.T, name, alter string) string {
		t.Helper()
		role := e.intruderNamed(t, name)
		if alter != "" {
			e.exec(t, fmt.Sprintf(alter, quoteIdent(role)))
		}
		u, err := url.Parse(e.db.URL)
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.UserPassword(role, "intruder-pw")
		return u.String()
	}
	cases := []struct {
		name string
		url  func(t *testing.T) string
		want string
	}{
		{"superuser", func(*testing.T) string { return e.db.URL }, "is a superuser (SUPERUSER)"},
		{"admin role", func(*testing.T) string { return e.url(RoleAdmin) }, "is " + e.roles.Admin + " or a member of it"},
		{"migration role", func(*testing.T) string { return e.url(RoleMigration) }, "owns the schema qinglong"},
		{"maintenance role", func(*testing.T) string { return e.url(RoleMaintenance) }, "is " + e.roles.Maintenance + " or a member of it"},
		{"BYPASSRLS", func(t *testing.T) string { return other(t, "rls", "ALTER ROLE %s BYPASSRLS") }, "bypasses row-level security (BYPASSRLS)"},
		{"CREATEROLE", func(t *testing.T) string { return other(t, "cr", "ALTER ROLE %s CREATEROLE") }, "may create roles (CREATEROLE)"},
		{"CREATEDB", func(t *testing.T) string { return other(t, "cd", "ALTER ROLE %s CREATEDB") }, "may create databases (CREATEDB)"},
		{"member of the admin role", func(t *testing.T) string {
			return other(t, "ma", "GRANT "+quoteIdent(e.roles.Admin)+" TO %s")
		}, "is " + e.roles.Admin + " or a member of it"},
		{"owner of a table", func(t *testing.T) string {
			return other(t, "own", "ALTER TABLE qinglong.api_tokens OWNER TO %s")
		}, "owns tables, views or sequences of the schema qinglong (1, api_tokens among them)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckRuntime(t.Context(), c.url(t), e.roles)
			var re *ReadinessError
			if !errors.As(err, &re) || re.Code != CodeRoleTooPowerful || !strings.Contains(re.Detail, c.want) ||
				!strings.Contains(re.Detail, "connect as "+e.roles.Runtime) || !strings.Contains(err.Error(), "`ql db roles` created") {
				t.Fatalf("runtime readiness as the %s: %v; want %s saying %q and to connect as %s", c.name, err, CodeRoleTooPowerful, c.want, e.roles.Runtime)
			}
		})
	}
}
