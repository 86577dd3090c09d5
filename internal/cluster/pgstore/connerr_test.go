package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/testkit/freeport"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// connectsAs is every way a command opens a connection: `ql db check`
// (CheckRuntime), `ql db roles` (EnsureRoles), `ql db migrate` (Migrate),
// and a replica's or a command's pool (OpenRuntime).
var connectsAs = map[string]func(ctx context.Context, url string) error{
	"check": func(ctx context.Context, url string) error {
		return CheckRuntime(ctx, url, RoleNames(""))
	},
	"roles": func(ctx context.Context, url string) error {
		return EnsureRoles(ctx, url, RolesConfig{})
	},
	"migrate": func(ctx context.Context, url string) error {
		_, err := Migrate(ctx, url, nil)
		return err
	},
	"pool": func(ctx context.Context, url string) error {
		rt, err := OpenRuntime(ctx, url, RuntimeConfig{Owner: "connerr-test"})
		if err == nil {
			rt.Close()
		}
		return err
	},
}

func TestABadURLParameterIsNamedAndNotCalledUnavailable(t *testing.T) {
	t.Parallel()
	const password = "Secret-pw-4711"
	base := fmt.Sprintf("postgres://ql_runtime:%s@127.0.0.1:%d/qinglong", password, pgtest.Server(t).Port())
	cases := []struct{ url, names string }{
		{base + "?sslmode=bogus", "sslmode"},
		{base + "?connect_timeout=abc", "connect_timeout"},
		{base + "?target_session_attrs=bogus", "target_session_attrs"},
		{base + "?sslmode=disable&channel_binding", "channel_binding"},
		{strings.Replace(base, ":"+password+"@", ":"+password+"%zz@", 1), "password"},
		{strings.Replace(base, "/qinglong", "/ql%zzdb", 1), "database name"},
		{fmt.Sprintf("postgres://ql_runtime:%s@127.0.0.1:port%s/qinglong", password, password), "port"},
		{fmt.Sprintf("host=127.0.0.1 port=%d user=ql_runtime password=%s sslmode=xx dbname=qinglong", pgtest.Server(t).Port(), password), "sslmode"},
	}
	for _, c := range cases {
		for step, open := range connectsAs {
			err := open(t.Context(), c.url)
			var re *ReadinessError
			if !qlerror.Is(err, qlerror.Invalid) || errors.As(err, &re) || Transient(err) {
				t.Errorf("%s, URL naming %s: %v; want a configuration error, neither a readiness failure nor one worth retrying", step, c.names, err)
				continue
			}
			msg := err.Error()
			if !strings.Contains(msg, c.names) || strings.Contains(msg, password) || strings.Contains(msg, "unavailable") || strings.Contains(msg, "reached") {
				t.Errorf("%s: %q; want it to name the %s, and neither the password nor an unreachable server", step, msg, c.names)
			}
		}
	}
}

func TestAWrongPasswordSaysTheServerRefusedTheRoleAndWhereItsPasswordComesFrom(t *testing.T) {
	t.Parallel()
	srv := pgtest.PasswordServer(t)
	db := srv.NewDatabase(t)
	role, wrong := uniquePrefix(t)+"refused", "Wrong-pw-0815"
	if err := createLogin(t, db.URL, role, "Right-pw-4242-4242"); err != nil {
		t.Fatal(err)
	}
	// sslmode left at pgx's default, prefer: this server offers no TLS, so
	// pgx's first attempt is refused TLS before the password is refused.
	url := fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s", role, wrong, srv.Port(), db.Name)
	for step, open := range connectsAs {
		err := open(t.Context(), url)
		var re *ReadinessError
		if !qlerror.Is(err, qlerror.FailedPrecondition) || errors.As(err, &re) || Transient(err) || !LoginRefused(err) {
			t.Errorf("%s: %v; want a refused login, neither a readiness failure nor one worth retrying", step, err)
			continue
		}
		msg := err.Error()
		for _, want := range []string{"refused the login of role " + role, "$PGPASSWORD", "$PGPASSFILE", "~/.pgpass", "`ql db roles`", "28P01"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %q lacks %q", step, msg, want)
			}
		}
		if strings.Contains(msg, wrong) || strings.Contains(msg, "unavailable") || strings.Contains(msg, "TLS") {
			t.Errorf("%s: %q; want neither the password, nor an unavailable server, nor the TLS attempt", step, msg)
		}
	}
}

// A login PostgreSQL refuses — a wrong password (28P01), a role that may
// not log in (28000) — has a diagnostic code of its own, login_refused,
// which says what to check, not database_error, which says nothing.
func TestARefusedLoginIsCodedLoginRefusedNotDatabaseError(t *testing.T) {
	t.Parallel()
	srv := pgtest.PasswordServer(t)
	db := srv.NewDatabase(t)
	const password = "Right-pw-4242-4242"
	prefix := uniquePrefix(t)
	if err := createLogin(t, db.URL, prefix+"wrong_pw", password); err != nil {
		t.Fatal(err)
	}
	if err := createRole(t, db.URL, prefix+"no_login", "NOLOGIN PASSWORD '"+password+"'"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ role, password, state string }{
		{prefix + "wrong_pw", "Wrong-pw-0815", "28P01"},
		{prefix + "no_login", password, "28000"},
	} {
		url := fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s", c.role, c.password, srv.Port(), db.Name)
		for step, open := range connectsAs {
			err := open(t.Context(), url)
			if got := sqlState(err); got != c.state {
				t.Errorf("%s as %s: SQLSTATE %q (%v); want %s", step, c.role, got, err, c.state)
				continue
			}
			if code := StateCode(err); code != "login_refused" {
				t.Errorf("%s as %s (%s): code %q; want login_refused", step, c.role, c.state, code)
			}
		}
	}
}

// A database the server does not have (3D000) has a diagnostic code of its
// own, database_missing, and every way of connecting says which database
// (by name, never the URL or its password), that it must be created and
// QingLong installed in it, or the URL's name corrected; no retry cures it.
// A URL that names no database asks for the role's name, which is said.
func TestAMissingDatabaseIsCodedDatabaseMissingAndSaysHowToCreateIt(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	// The shared server trusts every login: the password is there to be
	// looked for in the errors. No database has the role's name.
	role, password := uniquePrefix(t)+"nodb", "Right-pw-4242-4242"
	if err := createLogin(t, db.URL, role, password); err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d", role, password, pgtest.Server(t).Port())
	for url, name := range map[string]string{base + "/ql_nowhere": "ql_nowhere", base: role} {
		for step, open := range connectsAs {
			err := open(t.Context(), url)
			if code := StateCode(err); code != "database_missing" || !qlerror.Is(err, qlerror.FailedPrecondition) || Transient(err) {
				t.Errorf("%s, database %s: code %q (%v); want database_missing, a precondition no retry cures", step, name, code, err)
				continue
			}
			msg := err.Error()
			for _, want := range []string{"database " + name + " does not exist on this server", `CREATE DATABASE "` + name + `"`,
				"`ql db migrate` and `ql db roles`", "correct the database name in the URL"} {
				if !strings.Contains(msg, want) {
					t.Errorf("%s: %q lacks %q", step, msg, want)
				}
			}
			if strings.Contains(msg, password) || strings.Contains(msg, "postgres://") {
				t.Errorf("%s: %q shows the password or the URL", step, msg)
			}
		}
	}
}

// A server nobody answers for is said once, with the address, and what
// to check.
func TestAServerThatCannotBeReachedIsSaidOnceWithWhatToCheck(t *testing.T) {
	t.Parallel()
	addr := freeport.Refused(t)
	for step, open := range connectsAs {
		err := open(t.Context(), "postgres://ql_runtime@"+addr+"/qinglong")
		if !Transient(err) {
			t.Errorf("%s: %v; want a failure worth retrying", step, err)
			continue
		}
		msg := err.Error()
		if strings.Count(msg, addr) != 1 || strings.Count(msg, "refused") != 1 || strings.Contains(msg, "\n") ||
			strings.Count(msg, "is unavailable")+strings.Count(msg, "cannot be reached") != 1 {
			t.Errorf("%s: %q; want the address and the refusal once, on one line, and unreachable said once", step, msg)
		}
		if !strings.Contains(msg, "check that PostgreSQL runs at the URL's host and port") {
			t.Errorf("%s: %q; want what to check", step, msg)
		}
	}
}

// createLogin creates a LOGIN role with a password (on a server of the
// test's own: roles are server-wide).
func createLogin(t *testing.T, superURL, role, password string) error {
	return createRole(t, superURL, role, "LOGIN PASSWORD '"+password+"'")
}

// createRole creates role with options.
func createRole(t *testing.T, superURL, role, options string) error {
	conn, err := connect(t.Context(), superURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(t.Context(), "CREATE ROLE "+role+" "+options)
	return err
}
