package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// env is one migrated database with its own five roles.
type env struct {
	db    *pgtest.Database
	roles Roles
	super *pgxpool.Pool
}

// newEnv creates a database, migrates it as the superuser (first install)
// and installs roles with a prefix unique to the test, since roles are
// server-wide and tests run in parallel.
func newEnv(t testing.TB) *env {
	t.Helper()
	return withRoles(t, pgtest.NewPreparedDatabase(t, migratedTemplate, migrateEmpty))
}

// migratedTemplate names the template database every env is copied from:
// an empty database the migrations have run in.
const migratedTemplate = "pgstore migrated"

func migrateEmpty(ctx context.Context, url string) error {
	_, err := Migrate(ctx, url, nil)
	return err
}

// newEnvIn is newEnv in a given database (e.g. on a server of the test's
// own, started with settings the shared server does not have).
func newEnvIn(t testing.TB, db *pgtest.Database) *env {
	t.Helper()
	if _, err := Migrate(t.Context(), db.URL, nil); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return withRoles(t, db)
}

// withRoles installs a fresh set of roles in a migrated database.
func withRoles(t testing.TB, db *pgtest.Database) *env {
	t.Helper()
	prefix := uniquePrefix(t)
	cfg := RolesConfig{Prefix: prefix, Passwords: map[RoleKind]string{}}
	for _, k := range RoleKinds {
		cfg.Passwords[k] = "test-password-" + string(k)
	}
	if err := EnsureRoles(t.Context(), db.URL, cfg); err != nil {
		t.Fatalf("roles: %v", err)
	}
	return &env{db: db, roles: RoleNames(prefix), super: db.Pool(t)}
}

func uniquePrefix(t testing.TB) string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "t" + hex.EncodeToString(b) + "_"
}

// url connects to the env's database as one of its roles.
func (e *env) url(k RoleKind) string {
	u, err := url.Parse(e.db.URL)
	if err != nil {
		panic(err)
	}
	u.User = url.UserPassword(e.roles.Name(k), "test-password-"+string(k))
	return u.String()
}

// conn opens a single connection as a role, closed on cleanup. A role
// that may not log in (noLogin) is taken on with SET ROLE over the
// superuser's connection, so that what it may do is still tested.
func (e *env) conn(t testing.TB, k RoleKind) *pgx.Conn {
	t.Helper()
	u := e.url(k)
	if noLogin[k] {
		u = e.db.URL
	}
	c, err := pgx.Connect(t.Context(), u)
	if err != nil {
		t.Fatalf("connect as %s: %v", k, err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	if noLogin[k] {
		if _, err := c.Exec(t.Context(), "SET ROLE "+quoteIdent(e.roles.Name(k))); err != nil {
			t.Fatalf("SET ROLE %s: %v", k, err)
		}
	}
	return c
}

func (e *env) exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	if _, err := e.super.Exec(t.Context(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func quoteIdent(s string) string { return pgx.Identifier{s}.Sanitize() }

// intruder creates a LOGIN role that is not one of the env's, allowed to
// connect to its database, and returns its name (password "intruder-pw").
// Roles are server-wide, so its name carries the env's prefix.
func (e *env) intruder(t testing.TB) string {
	t.Helper()
	return e.intruderNamed(t, "intruder")
}

// intruderNamed is intruder with the name's suffix given, for a test that
// needs several.
func (e *env) intruderNamed(t testing.TB, suffix string) string {
	t.Helper()
	name := strings.TrimSuffix(e.roles.Runtime, string(RoleRuntime)) + suffix
	e.exec(t, "CREATE ROLE "+quoteIdent(name)+" LOGIN PASSWORD 'intruder-pw'")
	e.exec(t, "GRANT CONNECT ON DATABASE "+quoteIdent(e.db.Name)+" TO "+quoteIdent(name))
	return name
}

// connAs opens a single connection as any role, closed on cleanup.
func (e *env) connAs(t testing.TB, role, password string) *pgx.Conn {
	t.Helper()
	u, err := url.Parse(e.db.URL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(role, password)
	c, err := pgx.Connect(t.Context(), u.String())
	if err != nil {
		t.Fatalf("connect as %s: %v", role, err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}
