package dbcli

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// run executes `ql db <args>` with env as its whole environment.
func run(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	cmd := newDBCommand(func(k string) string { return env[k] })
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(t.Context())
	return out.String(), err
}

func asRole(t *testing.T, superURL, role string) string {
	t.Helper()
	u, err := url.Parse(superURL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	return u.String()
}

func randomPrefix(t *testing.T) string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "c" + hex.EncodeToString(b) + "_"
}

// TestInstallFlowEndsReady is the documented install: roles (superuser),
// migrate (migration role), roles again (grants on the new tables), check
// (runtime role).
func TestInstallFlowEndsReady(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	prefix := randomPrefix(t)
	names := pgstore.RoleNames(prefix)
	env := map[string]string{
		EnvSuperuserURL: db.URL,
		EnvMigrationURL: asRole(t, db.URL, names.Migration),
		EnvRuntimeURL:   asRole(t, db.URL, names.Runtime),
	}
	secrets := map[string]string{}
	for _, k := range pgstore.RoleKinds {
		secrets[passwordEnv(k)] = "secret-" + string(k) + "-0123456789"
		env[passwordEnv(k)] = secrets[passwordEnv(k)]
	}
	var transcript strings.Builder
	for _, step := range [][]string{{"roles"}, {"migrate"}, {"roles"}, {"check"}, {"migrate"}} {
		out, err := run(t, env, append(step, "--role-prefix", prefix)...)
		transcript.WriteString(out)
		if err != nil {
			t.Fatalf("ql db %s: %v\n%s", step[0], err, out)
		}
	}
	got := transcript.String()
	for _, want := range []string{
		"applying pg-0001-control-schema (sha256:", fmt.Sprintf("applied %d migrations in ", len(pgstore.Stream())), "role " + names.Runtime + " (runtime): created", "ready", "up to date",
		"role " + names.WorkerIngress + " (worker_ingress): " + string(pgstore.RoleNoLoginPasswordUnused) + "; the worker ingress runs inside each replica as the runtime role; CONNECT and USAGE on the schema only",
		"search_path pg_catalog, pg_temp; statement_timeout 10s; idle_in_transaction_session_timeout 5s",
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("output lacks %q:\n%s", want, got)
		}
	}
	for _, secret := range secrets {
		if strings.Contains(got, secret) {
			t.Fatalf("output shows a password:\n%s", got)
		}
	}
}

// `ql db migrate` names each migration once, as it begins, then counts
// them: it does not list them all a second time when it is done.
func TestMigrateNamesEachMigrationOnce(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	out, err := run(t, map[string]string{EnvMigrationURL: db.URL}, "migrate")
	if err != nil {
		t.Fatalf("ql db migrate: %v\n%s", err, out)
	}
	stream := pgstore.Stream()
	for _, m := range stream {
		if n := strings.Count(out, m.ID+" "); n != 1 {
			t.Fatalf("migration %s named %d times, want once:\n%s", m.ID, n, out)
		}
	}
	last := stream[len(stream)-1].ID
	if want := fmt.Sprintf("applied %d migrations in ", len(stream)); !strings.Contains(out, want) || !strings.Contains(out, "the schema is now at "+last+"\n") {
		t.Fatalf("output lacks %q and the last migration %s:\n%s", want, last, out)
	}
}

// `ql db roles` connected as a role that may not create roles says it
// needs a superuser and where its URL goes, not to see `ql db roles`.
func TestRolesAsANonSuperuserSaysItNeedsOne(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	prefix := randomPrefix(t)
	env := map[string]string{EnvSuperuserURL: db.URL}
	for _, k := range pgstore.RoleKinds {
		env[passwordEnv(k)] = "secret-" + string(k) + "-0123456789"
	}
	if _, err := run(t, env, "roles", "--role-prefix", prefix); err != nil {
		t.Fatalf("roles as the superuser: %v", err)
	}
	env[EnvSuperuserURL] = asRole(t, db.URL, pgstore.RoleNames(prefix).Admin)
	_, err := run(t, env, "roles", "--role-prefix", prefix)
	if err == nil || !strings.Contains(err.Error(), "needs a superuser") || !strings.Contains(err.Error(), "$"+EnvSuperuserURL) || strings.Contains(err.Error(), "see `ql db roles`") {
		t.Fatalf("roles as the admin role: %v; want it to say a superuser is needed and where its URL goes", err)
	}
}

func TestCheckPrintsTheStableCode(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	// A plain role: the superuser would be refused first (role_too_powerful).
	plain := randomPrefix(t) + "plain"
	if _, err := db.Pool(t).Exec(t.Context(), "CREATE ROLE "+plain+" LOGIN"); err != nil {
		t.Fatal(err)
	}
	_, err := run(t, map[string]string{EnvURL: asRole(t, db.URL, plain)}, "check")
	var re *pgstore.ReadinessError
	if !errors.As(err, &re) || re.Code != pgstore.CodeHistoryBehind || !strings.Contains(err.Error(), "ql db migrate") {
		t.Fatalf("check of an empty database: %v; want %s telling to run ql db migrate", err, pgstore.CodeHistoryBehind)
	}
}

// `ql db check` checks the runtime role: the superuser's URL given as the
// runtime role's is refused, saying what the role may do and what to connect
// as, where it used to print "ready" on an installed database. The refusal
// is the credential's (exit 5, as a role PostgreSQL refuses): run again with
// the same URL it never passes, so a script must not retry it as exit 1.
func TestCheckRefusesASuperuserAsTheRuntimeRoleAsACredentialRefused(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	prefix := randomPrefix(t)
	env := map[string]string{EnvSuperuserURL: db.URL, EnvMigrationURL: db.URL, EnvRuntimeURL: db.URL}
	for _, k := range pgstore.RoleKinds {
		env[passwordEnv(k)] = "secret-" + string(k) + "-0123456789"
	}
	for _, step := range []string{"migrate", "roles"} {
		if out, err := run(t, env, step, "--role-prefix", prefix); err != nil {
			t.Fatalf("ql db %s: %v\n%s", step, err, out)
		}
	}
	out, err := run(t, env, "check", "--role-prefix", prefix)
	var re *pgstore.ReadinessError
	if !errors.As(err, &re) || re.Code != pgstore.CodeRoleTooPowerful || !strings.Contains(err.Error(), "(SUPERUSER)") ||
		!strings.Contains(err.Error(), "connect as "+pgstore.RoleNames(prefix).Runtime) || strings.Contains(out, "ready\n") {
		t.Fatalf("check with the superuser as the runtime role: %v %q; want %s naming SUPERUSER and the runtime role", err, out, pgstore.CodeRoleTooPowerful)
	}
	if code := qlerror.CodeOf(err); code != qlerror.PermissionDenied {
		t.Fatalf("check with the superuser as the runtime role: code %s; want %s, the credential refused (exit 5)", code, qlerror.PermissionDenied)
	}
}

// `ql db check`, `ql db migrate` and `ql db roles` given a URL whose
// database the server does not have say which database, to create it and
// install QingLong in it (or correct the URL), and never the password.
func TestADBCommandOnAMissingDatabaseSaysWhichAndHowToCreateIt(t *testing.T) {
	t.Parallel()
	// The shared server trusts every login: the password is there to be
	// looked for in the output.
	const password = "Right-pw-4242-4242"
	u, err := url.Parse(pgtest.Server(t).SuperuserURL("ql_nowhere"))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), password)
	env := map[string]string{EnvURL: u.String()}
	for _, k := range pgstore.RoleKinds {
		env[passwordEnv(k)] = "secret-" + string(k) + "-0123456789"
	}
	for _, step := range []string{"check", "migrate", "roles"} {
		out, err := run(t, env, step, "--role-prefix", randomPrefix(t))
		if pgstore.StateCode(err) != "database_missing" {
			t.Errorf("ql db %s: %v; want a missing database", step, err)
			continue
		}
		msg := out + err.Error()
		for _, want := range []string{"database ql_nowhere does not exist on this server", `CREATE DATABASE "ql_nowhere"`, "`ql db migrate` and `ql db roles`"} {
			if !strings.Contains(msg, want) {
				t.Errorf("ql db %s: %q lacks %q", step, msg, want)
			}
		}
		if strings.Contains(msg, password) {
			t.Errorf("ql db %s: %q shows the password", step, msg)
		}
	}
}

// A command given no database URL says which variable to set, as a usage
// error (exit 2), as serve and worker do for their missing settings, and
// that a standalone or edge data directory needs none of it.
func TestMissingURLSaysWhichVariableAndIsAUsageError(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		variable string
		run      func() error
	}{
		{EnvMigrationURL, func() error { _, err := run(t, map[string]string{}, "migrate"); return err }},
		{EnvSuperuserURL, func() error { _, err := run(t, map[string]string{}, "roles"); return err }},
		{EnvRuntimeURL, func() error { _, err := run(t, map[string]string{}, "check"); return err }},
		{EnvAdminURL, func() error { _, _, err := workers(t, map[string]string{}, "list"); return err }},
	} {
		err := c.run()
		var ue *cli.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.variable) || !strings.Contains(err.Error(), EnvURL) {
			t.Errorf("without a URL: %v; want a usage error naming $%s and $%s", err, c.variable, EnvURL)
		}
		if !strings.Contains(err.Error(), "a standalone or edge data directory needs none of it") {
			t.Errorf("without a URL: %v; want it to say a standalone or edge data directory needs none of it", err)
		}
	}
}

func TestRolesNeedsAPasswordOnlyToCreate(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	_, err := run(t, map[string]string{EnvURL: db.URL}, "roles", "--role-prefix", randomPrefix(t))
	if err == nil || !strings.Contains(err.Error(), "QL_DATABASE_MIGRATION_PASSWORD") {
		t.Fatalf("roles without passwords for new roles: %v; want the variable to set", err)
	}
}

// Every role whose password is too short is named in the one refusal
// (exit 2, before any connection), so one run lists all to replace.
func TestRolesNamesEveryShortPassword(t *testing.T) {
	t.Parallel()
	out, err := run(t, map[string]string{
		EnvURL:                             "postgres://nobody@127.0.0.1:1/none",
		"QL_DATABASE_ADMIN_PASSWORD":       "short-1",
		"QL_DATABASE_RUNTIME_PASSWORD":     "long-enough-password",
		"QL_DATABASE_MIGRATION_PASSWORD":   "short-2",
		"QL_DATABASE_MAINTENANCE_PASSWORD": "short-3",
	}, "roles")
	if !qlerror.Is(err, qlerror.Invalid) {
		t.Fatalf("roles with short passwords: %v; want an invalid-input error (exit 2)", err)
	}
	want := "passwords for the migration, admin and maintenance roles are shorter than 12 characters"
	if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "runtime") {
		t.Fatalf("roles with short passwords: %q; want %q and not the runtime role", err, want)
	}
	for _, secret := range []string{"short-1", "short-2", "short-3", "long-enough-password"} {
		if strings.Contains(err.Error(), secret) || strings.Contains(out, secret) {
			t.Fatalf("roles printed a password: %q %q", err, out)
		}
	}
}

// A password file others may read is refused as invalid input (exit 2, as
// a worker's credential file others may read), not as a run-time failure
// (exit 1) a script would retry unchanged.
func TestPasswordFilesOthersMayReadAreRefusedAsInvalidInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "runtime"), []byte("secret-from-file-123\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	names := pgstore.RoleNames("")
	if _, err := readPasswords(func(string) string { return "" }, dir, names); !qlerror.Is(err, qlerror.Invalid) || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("group-readable password file: %v; want an invalid-input refusal (exit 2) naming chmod 600", err)
	}
	if err := os.Chmod(filepath.Join(dir, "runtime"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := readPasswords(func(k string) string {
		if k == "QL_DATABASE_ADMIN_PASSWORD" {
			return "secret-from-env-123"
		}
		return ""
	}, dir, names)
	if err != nil || got[pgstore.RoleRuntime] != "secret-from-file-123" || got[pgstore.RoleAdmin] != "secret-from-env-123" || len(got) != 2 {
		t.Fatalf("passwords %v, %v; want runtime from the file (newline trimmed) and admin from the environment", got, err)
	}
}

// A file in --password-file-dir named for no role kind is refused (exit 2,
// nothing changed), never skipped: a rotation written to DIR/ql_runtime
// (the role's name, not its kind's) would otherwise exit 0 having set
// nothing. The refusal says the name to give it.
func TestAPasswordFileNamedForNoRoleKindIsRefusedNotIgnored(t *testing.T) {
	t.Parallel()
	names := pgstore.RoleNames("")
	for _, c := range []struct{ file, want string }{
		{names.Runtime, "rename it "},
		{"runtime.txt", "names no role kind; the files there are named migration, admin, runtime, worker_ingress, maintenance"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, c.file), []byte("secret-from-file-123\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := readPasswords(func(string) string { return "" }, dir, names)
		if !qlerror.Is(err, qlerror.Invalid) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.file) {
			t.Errorf("password file %s: %v; want an invalid-input refusal naming it and %q", c.file, err, c.want)
		}
		if c.file == names.Runtime && !strings.Contains(err.Error(), filepath.Join(dir, "runtime")) {
			t.Errorf("password file %s: %v; want it to name %s", c.file, err, filepath.Join(dir, "runtime"))
		}
	}
}

// `ql db roles` says for each role whether it created it, set its password
// or left the password as it was, so an operator sees a rotation happen:
// a password file for one role changes that role's password and no other.
// worker_ingress, which may not log in, says so, and that a password given
// for it was not set.
func TestRolesSaysWhichRoleItCreatedOrWhosePasswordItSet(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	prefix := randomPrefix(t)
	names := pgstore.RoleNames(prefix)
	env := map[string]string{EnvSuperuserURL: db.URL}
	for _, k := range pgstore.RoleKinds {
		env[passwordEnv(k)] = "secret-" + string(k) + "-0123456789"
	}
	out, err := run(t, env, "roles", "--role-prefix", prefix)
	if err != nil {
		t.Fatalf("ql db roles: %v\n%s", err, out)
	}
	for _, k := range pgstore.RoleKinds {
		want := "role " + names.Name(k) + " (" + string(k) + "): created; "
		if k == pgstore.RoleWorkerIngress {
			want = "role " + names.WorkerIngress + " (worker_ingress): " + string(pgstore.RoleNoLoginPasswordUnused) + "; "
		}
		if !strings.Contains(out, want) {
			t.Fatalf("first ql db roles: %q lacks %q", out, want)
		}
	}
	verifier := func() string {
		var v string
		if err := db.Pool(t).QueryRow(t.Context(), "SELECT rolpassword FROM pg_authid WHERE rolname = $1", names.Runtime).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := verifier()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "runtime"), []byte("rotated-runtime-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = run(t, map[string]string{EnvSuperuserURL: db.URL}, "roles", "--role-prefix", prefix, "--password-file-dir", dir)
	if err != nil {
		t.Fatalf("ql db roles --password-file-dir: %v\n%s", err, out)
	}
	for _, k := range pgstore.RoleKinds {
		want := "role " + names.Name(k) + " (" + string(k) + "): password unchanged; "
		switch k {
		case pgstore.RoleRuntime:
			want = "role " + names.Runtime + " (runtime): password set; "
		case pgstore.RoleWorkerIngress:
			want = "role " + names.WorkerIngress + " (worker_ingress): " + string(pgstore.RoleNoLogin) + "; "
		}
		if !strings.Contains(out, want) {
			t.Errorf("rotation: %q lacks %q", out, want)
		}
	}
	if verifier() == before {
		t.Fatalf("rotation through %s/runtime left the runtime role's password as it was", dir)
	}
}

// Each variable an earlier release read is refused with its new name (a
// usage error, exit 2) before any connection, never silently ignored.
func TestRenamedVariablesAreRefusedWithTheirNewNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		old, now string
		args     []string
	}{
		{"QL_PG_URL", EnvURL, []string{"check"}},
		{"QL_PG_MIGRATION_URL", EnvMigrationURL, []string{"migrate"}},
		{"QL_PG_SUPERUSER_URL", EnvSuperuserURL, []string{"roles"}},
		{"QL_PG_RUNTIME_URL", EnvRuntimeURL, []string{"check"}},
		{"QL_PG_RUNTIME_PASSWORD", "QL_DATABASE_RUNTIME_PASSWORD", []string{"roles"}},
	} {
		env := map[string]string{c.old: "postgres://nobody@127.0.0.1:1/none"}
		if strings.HasSuffix(c.old, "_PASSWORD") {
			env = map[string]string{EnvURL: "postgres://nobody@127.0.0.1:1/none", c.old: "pw-0123456789"}
		}
		_, err := run(t, env, c.args...)
		var ue *cli.UsageError
		if !errors.As(err, &ue) || err.Error() != c.old+" was renamed "+c.now+"; set that instead" {
			t.Errorf("ql db %s with %s: %v; want a usage error naming %s", c.args[0], c.old, err, c.now)
		}
	}
}

// Not parallel: sets the process environment. Through the whole command
// tree, ql db reads QL_DATABASE_URL, the QL_DATABASE_<ROLE>_PASSWORD
// variables and QL_ROLE_PREFIX, the variable of its --role-prefix flag as
// of serve's.
func TestDBCommandsReadTheSharedVariables(t *testing.T) {
	db := pgtest.NewDatabase(t)
	prefix := randomPrefix(t)
	t.Setenv(EnvURL, db.URL)
	t.Setenv("QL_ROLE_PREFIX", prefix)
	for _, k := range pgstore.RoleKinds {
		t.Setenv(passwordEnv(k), "secret-"+string(k)+"-0123456789")
	}
	opts := cli.Options{Binary: "ql", Extra: []*cobra.Command{DBCommand()}}
	var out, errOut bytes.Buffer
	if code := cli.Main(t.Context(), opts, []string{"db", "roles"}, &out, &errOut); code != 0 {
		t.Fatalf("ql db roles: exit %d %s %s", code, out.String(), errOut.String())
	}
	if want := "role " + pgstore.RoleNames(prefix).Runtime + " (runtime): created"; !strings.Contains(out.String(), want) {
		t.Fatalf("ql db roles with QL_ROLE_PREFIX=%s: %q lacks %q", prefix, out.String(), want)
	}
}

// A migrate that applies one migration says so in the singular, and one
// that applies several in the plural.
func TestOneAppliedMigrationIsCountedInTheSingular(t *testing.T) {
	one := []pgstore.Applied{{ID: "pg-0042-x"}}
	if got, want := migrated(one, 42, 1500*time.Millisecond), "applied 1 migration in 1.5s; the schema is now at pg-0042-x"; got != want {
		t.Errorf("one applied: %q, want %q", got, want)
	}
	two := []pgstore.Applied{{ID: "pg-0041-w"}, {ID: "pg-0042-x"}}
	if got, want := migrated(two, 42, time.Second), "applied 2 migrations in 1s; the schema is now at pg-0042-x"; got != want {
		t.Errorf("two applied: %q, want %q", got, want)
	}
	if got, want := migrated(nil, 1, 0), "up to date: 1 migration applied, none pending"; got != want {
		t.Errorf("none pending of one: %q, want %q", got, want)
	}
}
