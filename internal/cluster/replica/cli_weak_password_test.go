package replica

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// On the cluster, `ql users create` and `passwd` refuse a password that
// is one of the most common or contains the user's name, as on an
// embedded database, and store nothing.
func TestUsersCommandsRefuseWeakPasswordsOnTheCluster(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	run := func(stdin string, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(bin, append(args, "--password-stdin")...)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "QL_DATABASE_URL=", "QL_DATA_DIR=", "QL_HTTP_ADDR=", "QL_DATABASE_ADMIN_URL="+env.URL(pgstore.RoleAdmin))
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), string(out)
	}
	if code, out := run("qw3rty123456\n", "users", "create", "alice", "--owner"); code == 0 || !strings.Contains(out, "one of the most common passwords") {
		t.Fatalf("a common password: exit %d %q, want a refusal saying so", code, out)
	}
	if code, out := run("alice-in-wonderland\n", "users", "create", "alice", "--owner"); code == 0 || !strings.Contains(out, `contains the user name "alice"`) {
		t.Fatalf("a password containing the name: exit %d %q, want a refusal saying so", code, out)
	}
	if n := env.Int(t, `SELECT count(*) FROM qinglong.console_users`); n != 0 {
		t.Fatalf("refused passwords stored %d users", n)
	}
	if code, out := run("a-long-enough-passphrase\n", "users", "create", "alice", "--owner"); code != 0 {
		t.Fatalf("a good password: exit %d %q", code, out)
	}
	if code, out := run("password2026\n", "users", "passwd", "alice"); code == 0 || !strings.Contains(out, "one of the most common passwords") {
		t.Fatalf("passwd with a common password: exit %d %q, want a refusal", code, out)
	}
}
