package replica

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// runQLIn is runQL with stdin as the command's standard input.
func runQLIn(t *testing.T, bin, stdin string, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "QL_DATABASE_URL=", "QL_HTTP_ADDR="), env...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

// On the cluster, as on an embedded database, a request that conflicts
// with what exists exits 4 (a user, token or worker name that is taken, a
// run of a disabled trigger), and one the URL's role may not make exits 5
// (a user created, a worker created or a file applied with the runtime
// role's URL — also a file that changes nothing, so a CI job given the
// wrong role fails before its first real change —, runs read with the
// admin role's, a login PostgreSQL refuses,
// to a command or to a replica starting), each saying what to do; a name
// of nothing still exits 1.
func TestOnTheClusterATakenNameExitsFourAndARoleThatMayNotExitsFive(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	admin, runtime := env.URL(pgstore.RoleAdmin), env.URL(pgstore.RoleRuntime)
	asAdmin, asRuntime := []string{"QL_DATABASE_URL=" + admin}, []string{"QL_DATABASE_URL=" + runtime}
	file := filepath.Join(t.TempDir(), "defs.yaml")
	defs := strings.Replace(clustertest.Triggers("codes", 1, clustertest.QuietCron()), "timezone: UTC}", "timezone: UTC, enabled: false}", 1)
	if err := os.WriteFile(file, []byte(defs), 0o600); err != nil {
		t.Fatal(err)
	}
	// The cluster's test server trusts every local login; this one asks
	// for the password.
	srv := pgtest.NewPasswordServer(t)
	db := srv.NewDatabase(t)
	super, err := pgx.Connect(t.Context(), db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer super.Close(context.Background())
	if _, err := super.Exec(t.Context(), "CREATE ROLE ql_admin LOGIN PASSWORD 'Right-pw-4242-4242'"); err != nil {
		t.Fatal(err)
	}
	wrong := fmt.Sprintf("postgres://ql_admin:Wrong-pw-0815@127.0.0.1:%d/%s", srv.Port(), db.Name)
	const pw = "correct horse battery\n"
	for _, step := range []struct {
		what  string
		env   []string
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"apply as the runtime role", asRuntime, "", []string{"apply", "-f", file}, 5, "needs the admin role's URL"},
		{"apply as the admin role", asAdmin, "", []string{"apply", "-f", file}, 0, "trigger t00000: created"},
		{"apply of an unchanged file as the runtime role", asRuntime, "", []string{"apply", "-f", file}, 5, "publishing definitions needs the admin role's URL"},
		{"a dry run as the runtime role, which only reads", asRuntime, "", []string{"apply", "--dry-run", "-f", file}, 0, "unchanged"},
		{"users create", asAdmin, pw, []string{"users", "create", "alice", "--password-stdin"}, 0, `user "alice"`},
		{"users create again", asAdmin, pw, []string{"users", "create", "alice", "--password-stdin"}, 4, `a user named "alice" exists; choose another name`},
		{"tokens create", asAdmin, "", []string{"tokens", "create", "ci", "--scope", "read"}, 0, "shown only this once"},
		{"tokens create again", asAdmin, "", []string{"tokens", "create", "ci", "--scope", "read"}, 4, `an active token named "ci" exists; revoke it first`},
		{"workers create", []string{"QL_DATABASE_ADMIN_URL=" + admin}, "", []string{"workers", "create", "w1"}, 0, "qlw_"},
		{"workers create again", []string{"QL_DATABASE_ADMIN_URL=" + admin}, "", []string{"workers", "create", "w1"}, 4, `a worker named "w1" already exists; choose another name`},
		{"a run of a disabled trigger", asRuntime, "", []string{"triggers", "run", "t00000"}, 4, "is disabled: nothing of it runs"},
		{"a cancel of a Run that does not exist", asRuntime, "", []string{"runs", "cancel", "0193a8a0-0000-7000-8000-00000000abcd"}, 1, "does not exist"},
		{"runs list as the admin role", asAdmin, "", []string{"runs", "list"}, 5, "needs the runtime role's URL"},
		{"users create as the runtime role", asRuntime, pw, []string{"users", "create", "bob", "--password-stdin"}, 5, "needs the admin role's URL"},
		{"workers create as the runtime role", asRuntime, "", []string{"workers", "create", "w2"}, 5, "needs the admin role's URL"},
		{"a login PostgreSQL refuses", []string{"QL_DATABASE_URL=" + wrong}, "", []string{"triggers", "list"}, 5, "PostgreSQL refused the login of role"},
		{"a replica whose login PostgreSQL refuses", []string{"QL_DATABASE_URL=" + wrong}, "",
			[]string{"serve", "--profile", "cluster", "--http-addr", "127.0.0.1:0", "--worker-addr", "127.0.0.1:0", "--replica-id", "refused"}, 5, "refused the login"},
	} {
		code, out := runQLIn(t, bin, step.stdin, step.env, step.args...)
		if code != step.code || !strings.Contains(out, step.want) {
			t.Errorf("%s: exit %d %q; want exit %d and %q", step.what, code, out, step.code, step.want)
		}
		if strings.Contains(out, "Wrong-pw-0815") {
			t.Errorf("%s: the output shows the password tried: %q", step.what, out)
		}
	}
}
