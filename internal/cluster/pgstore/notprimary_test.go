package pgstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/faults"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// A write sent to a standby is refused before anything is written, and
// says so: not_primary, "nothing was done" and to connect to the primary,
// whether the standby refuses a serializable transaction (a publish,
// SQLSTATE 0A000) or a write (`ql db roles`' ALTER ROLE, 25006). A
// command reading it never says the write may have been done.
func TestAWriteSentToAStandbyIsRefusedAsNotPrimarySayingToConnectToThePrimary(t *testing.T) {
	t.Parallel()
	pair := faults.StartSyncPair(t, nil)
	db := pair.Primary.NewDatabase(t)
	e := withRoles(t, db)
	if _, err := Migrate(t.Context(), db.URL, nil); err != nil {
		t.Fatal(err)
	}
	cfg := RolesConfig{Prefix: e.prefix(), Passwords: map[RoleKind]string{}}
	if err := EnsureRoles(t.Context(), db.URL, cfg); err != nil {
		t.Fatal(err)
	}
	// Synchronous with remote_apply: the standby has replayed all of it.
	onStandby := func(url string) string {
		return strings.Replace(url, fmt.Sprintf("127.0.0.1:%d", pair.Primary.Port()), fmt.Sprintf("127.0.0.1:%d", pair.Standby.Port()), 1)
	}
	admin, err := OpenAdmin(t.Context(), onStandby(e.url(RoleAdmin)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	_, publishErr := admin.ProjectSave(t.Context(), project.Project{ID: ids.New(), Name: "alpha", Status: project.Active})
	rolesErr := EnsureRoles(t.Context(), onStandby(db.URL), cfg)
	for name, err := range map[string]error{"a publish (0A000)": publishErr, "ql db roles (25006)": rolesErr} {
		msg := fmt.Sprint(err)
		if qlerror.ReasonOf(err) != schedule.RefusalNotPrimary || !qlerror.Is(err, qlerror.Unavailable) {
			t.Errorf("%s on the standby: %v (reason %q), want reason %s", name, err, qlerror.ReasonOf(err), schedule.RefusalNotPrimary)
		}
		if !strings.Contains(msg, "nothing was done: connect to the primary") {
			t.Errorf("%s on the standby: %q, want it to say nothing was done and to connect to the primary", name, msg)
		}
	}
}

// A statement a primary refuses as a feature it does not support (0A000,
// here FOR UPDATE over an aggregate, in a SERIALIZABLE transaction as a
// publish runs) is not read as a standby's refusal: it carries its own
// reason, feature_not_supported, and never says to connect to the primary.
func TestAFeatureThePrimaryDoesNotSupportIsNotReadAsNotPrimary(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	pool, err := pgxpool.New(t.Context(), db.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	raw := serializable(t.Context(), pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(t.Context(), "SELECT count(*) FROM pg_catalog.pg_class FOR UPDATE")
		return err
	})
	if sqlState(raw) != stateFeatureNotSupported {
		t.Fatalf("FOR UPDATE over an aggregate: %v, want SQLSTATE 0A000 to test with", raw)
	}
	err = mapErr(raw, "publishing")
	msg := fmt.Sprint(err)
	if qlerror.ReasonOf(err) != schedule.RefusalFeatureNotSupported || !qlerror.Is(err, qlerror.FailedPrecondition) {
		t.Errorf("%v (reason %q), want reason %s, failed_precondition", err, qlerror.ReasonOf(err), schedule.RefusalFeatureNotSupported)
	}
	if strings.Contains(msg, "connect to the primary") || !strings.Contains(msg, "not a standby") || !strings.Contains(msg, "nothing was done") {
		t.Errorf("%q, want it to say the server is not a standby and nothing was done, without sending to the primary", msg)
	}
}

// `ql db migrate` given a role that may not change the schema (here the
// runtime role, on a database with the roles and no migration yet) names
// the migration role to connect as.
func TestMigrateAsAnotherRoleNamesTheMigrationRole(t *testing.T) {
	t.Parallel()
	e := withRoles(t, pgtest.NewDatabase(t))
	_, err := Migrate(t.Context(), e.url(RoleRuntime), nil)
	msg := fmt.Sprint(err)
	if !strings.Contains(msg, "connects as the migration role, ql_migration") || !strings.Contains(msg, "QL_DATABASE_MIGRATION_URL") {
		t.Fatalf("%q, want it to name the migration role and its variable", msg)
	}
	if ForCommand(err) == nil || !qlerror.Is(ForCommand(err), qlerror.PermissionDenied) {
		t.Errorf("%v as a command reads it: want permission_denied (exit 5), the credential refused", ForCommand(err))
	}
}
