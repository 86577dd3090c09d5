package pgstore

import (
	"testing"

	"github.com/jackc/pgx/v5"
)

// The worker_ingress role, which nothing connects as (the worker ingress
// runs over the runtime role's pool), is no credential: `ql db roles`
// makes it NOLOGIN without a password, and on an installation made when it
// could log in, takes the login and the password away, the same on every
// run after. Readiness passes before that run (the role holds no more than
// it did) and after it; a password given for it is said not to be set.
func TestTheWorkerIngressRoleMayNotLogInAndASetupRunTakesAnOldLoginAway(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	name := e.roles.Name(RoleWorkerIngress)
	assertNoLogin := func(when string) {
		t.Helper()
		var login bool
		var password *string
		if err := e.super.QueryRow(t.Context(), "SELECT rolcanlogin, rolpassword FROM pg_authid WHERE rolname = $1", name).Scan(&login, &password); err != nil {
			t.Fatal(err)
		}
		if login || password != nil {
			t.Fatalf("%s: %s login=%v password set=%v; want NOLOGIN without a password", when, name, login, password != nil)
		}
		c, err := pgx.Connect(t.Context(), e.url(RoleWorkerIngress))
		if err == nil {
			c.Close(t.Context())
		}
		if !LoginRefused(err) {
			t.Fatalf("%s: logging in as %s: %v; want the login refused", when, name, err)
		}
	}
	assertNoLogin("after the first setup run")

	// An installation made when the role could log in.
	e.exec(t, "ALTER ROLE "+quoteIdent(name)+" LOGIN PASSWORD 'an-old-password-1'")
	requireReadiness(t, e, RoleRuntime, "")
	for run, password := range []string{"", "", "a-password-given-anyway"} {
		outcomes := map[RoleKind]RoleOutcome{}
		cfg := RolesConfig{Prefix: e.prefix(), Passwords: map[RoleKind]string{RoleWorkerIngress: password},
			Done: func(k RoleKind, o RoleOutcome) { outcomes[k] = o }}
		if err := EnsureRoles(t.Context(), e.db.URL, cfg); err != nil {
			t.Fatalf("setup run %d: %v", run+1, err)
		}
		want := RoleNoLogin
		if password != "" {
			want = RoleNoLoginPasswordUnused
		}
		if outcomes[RoleWorkerIngress] != want {
			t.Errorf("setup run %d: %s says %q, want %q", run+1, name, outcomes[RoleWorkerIngress], want)
		}
		assertNoLogin("after a later setup run")
		requireReadiness(t, e, RoleRuntime, "")
	}
}
