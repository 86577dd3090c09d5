package pgstore

import (
	"errors"
	"testing"
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

func TestReadinessPassesOnAFreshInstallForEveryRole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, k := range RoleKinds {
		requireReadiness(t, e, k, "")
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
