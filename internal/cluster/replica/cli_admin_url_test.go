package replica

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// `ql users` and `ql tokens` manage credentials, the admin role's on the
// cluster, and read $QL_DATABASE_ADMIN_URL as `ql workers` does: with it
// set and no database given, they act on the cluster instead of looking
// for an embedded database in the working directory; a command that does
// not read it, given no database, says which variable it reads.
func TestUsersAndTokensCommandsReadTheAdminURLAsWorkersDoes(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	dir := t.TempDir()
	run := func(stdin string, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "QL_DATABASE_URL=", "QL_DATA_DIR=", "QL_HTTP_ADDR=", "QL_DATABASE_ADMIN_URL="+env.URL(pgstore.RoleAdmin))
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), string(out)
	}
	if code, out := run("a-long-enough-password\n", "users", "create", "alice", "--owner", "--password-stdin"); code != 0 {
		t.Fatalf("users create with $QL_DATABASE_ADMIN_URL: exit %d %q", code, out)
	}
	if n := env.Int(t, `SELECT count(*) FROM qinglong.console_users WHERE name = 'alice'`); n != 1 {
		t.Fatalf("%d users named alice in the cluster's database, want 1", n)
	}
	code, out := run("", "tokens", "create", "ci", "--scope", "read")
	if secret := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0]); code != 0 || !apitoken.LooksLikeToken(secret) {
		t.Fatalf("tokens create with $QL_DATABASE_ADMIN_URL: exit %d %q", code, out)
	}
	if code, out := run("", "runs", "list"); code == 0 || !strings.Contains(out, "$QL_DATABASE_ADMIN_URL is set, but ql runs list reads the cluster's database from --database-url or $QL_DATABASE_URL") {
		t.Fatalf("runs list with only $QL_DATABASE_ADMIN_URL: exit %d %q, want a refusal naming the variable it reads", code, out)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Fatalf("the commands left %v in the working directory (%v), want nothing", entries, err)
	}
}
