package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// clusterBuild is a build with PostgreSQL whose cluster profile and
// opener only record that they were reached.
func clusterBuild(reached *[]string) Options {
	return Options{
		Binary: "ql",
		Profiles: map[string]Profile{
			ProfileStandalone: {Serve: func(context.Context, *cobra.Command, *ServeFlags) error { return nil }},
			ProfileCluster: {Serve: func(_ context.Context, _ *cobra.Command, f *ServeFlags) error {
				*reached = append(*reached, "serve "+f.DatabaseURL)
				return nil
			}},
		},
		OpenPostgres: func(_ context.Context, dsn string) (*Backend, error) {
			*reached = append(*reached, "open "+dsn)
			return nil, errors.New("not connecting in this test")
		},
	}
}

// A password inside a database URL on the command line is visible to every
// user in the process list: it is refused, without being printed, and the
// same URL from the environment is accepted.
func TestDatabaseURLWithAPasswordIsRefusedOnTheCommandLine(t *testing.T) {
	const secret = "s3cret-pw-4711"
	for _, args := range [][]string{
		{"serve", "--profile", "cluster", "--database-url", "postgres://ql_runtime:" + secret + "@db/ql?sslmode=verify-full"},
		{"serve", "--profile", "cluster", "--database-url", "postgresql://ql_runtime@db/ql?password=" + secret},
		{"runs", "list", "--database-url", "postgres://ql_runtime:" + secret + "@db/ql"},
		{"triggers", "list", "--database-url", "postgres://ql_runtime:" + secret + "@db/ql"},
		{"runs", "show", "0190a4f2-0000-7000-8000-000000000000", "--database-url", "postgres://ql_runtime:" + secret + "@db/ql"},
	} {
		var reached []string
		code, out, stderr := qlWith(t, clusterBuild(&reached), args...)
		if code != 2 || !strings.Contains(stderr, "holds a password") || !strings.Contains(stderr, "QL_DATABASE_URL") || !strings.Contains(stderr, "PGPASSFILE") {
			t.Errorf("%v: exit %d stderr %q; want a usage error with the hint", args[:2], code, stderr)
		}
		if strings.Contains(out+stderr, secret) {
			t.Errorf("%v: the password was printed: %q", args[:2], out+stderr)
		}
		if len(reached) != 0 {
			t.Errorf("%v: reached %v before refusing", args[:2], reached)
		}
	}
	// The maintenance role's password cannot go to $PGPASSWORD, which a
	// replica sends for its runtime role too: the hint says so.
	var refused []string
	code, out, stderr := qlWith(t, clusterBuild(&refused), "serve", "--profile", "cluster", "--database-url", "postgres://ql_runtime@db/ql?sslmode=verify-full",
		"--database-maintenance-url", "postgres://ql_maintenance:"+secret+"@db/ql?sslmode=verify-full")
	if code != 2 || !strings.Contains(stderr, "QL_DATABASE_MAINTENANCE_URL") || !strings.Contains(stderr, "with $PGPASSWORD unset") ||
		strings.Contains(out+stderr, secret) || len(refused) != 0 {
		t.Errorf("--database-maintenance-url with a password: exit %d stderr %q reached %v; want a usage error pointing at its variable or a pgpass file", code, stderr, refused)
	}
	t.Setenv("QL_DATABASE_URL", "postgres://ql_runtime:"+secret+"@localhost/ql")
	var reached []string
	if code, _, stderr := qlWith(t, clusterBuild(&reached), "serve", "--profile", "cluster"); code != 0 || len(reached) != 1 || stderr != "" {
		t.Fatalf("URL from the environment: exit %d reached %v stderr %q; want it served without a warning", code, reached, stderr)
	}
	if code, _, _ := qlWith(t, clusterBuild(&reached), "runs", "list"); code != 1 || len(reached) != 2 {
		t.Fatalf("QL_DATABASE_URL for runs list: exit %d reached %v; want it opened", code, reached)
	}
}

// A --config file holding a database password is refused, without
// printing it, while group or others may read it; at mode 0600 it serves,
// and a shared config file without a password serves too.
func TestAConfigFileWithADatabasePasswordMustBePrivate(t *testing.T) {
	t.Parallel()
	const secret = "s3cret-pw-in-file"
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	withPW := "database-url: postgres://ql_runtime:" + secret + "@db.example/ql?sslmode=verify-full\n"
	// The maintenance role's URL is as secret as the runtime role's.
	withMaintenancePW := "database-url: postgres://ql_runtime@db.example/ql?sslmode=verify-full\n" +
		"database-maintenance-url: postgres://ql_maintenance:" + secret + "@db.example/ql?sslmode=verify-full\n"
	for setting, body := range map[string]string{"database-url": withPW, "database-maintenance-url": withMaintenancePW} {
		for _, mode := range []os.FileMode{0o644, 0o640, 0o604} {
			config := write(fmt.Sprintf("shared-%s-%o.yaml", setting, mode), body, mode)
			var reached []string
			code, out, stderr := qlWith(t, clusterBuild(&reached), "serve", "--profile", "cluster", "--config", config)
			if code != 2 || !strings.Contains(stderr, "holds a database password in "+setting+" and is readable by group or others") ||
				!strings.Contains(stderr, "chmod 600 "+config) || len(reached) != 0 {
				t.Errorf("%s, mode %04o: exit %d %q reached %v; want exit 2 naming the setting and asking for chmod 600", setting, mode, code, stderr, reached)
			}
			if strings.Contains(out+stderr, secret) {
				t.Errorf("%s, mode %04o: printed the password", setting, mode)
			}
		}
	}
	for name, c := range map[string]struct {
		body string
		mode os.FileMode
	}{"private.yaml": {withPW, 0o600}, "nopassword.yaml": {"database-url: postgres://ql_runtime@db.example/ql?sslmode=verify-full\n", 0o644}} {
		var reached []string
		if code, _, stderr := qlWith(t, clusterBuild(&reached), "serve", "--profile", "cluster", "--config", write(name, c.body, c.mode)); code != 0 || len(reached) != 1 {
			t.Errorf("%s: exit %d %q reached %v; want it served", name, code, stderr, reached)
		}
	}
}
