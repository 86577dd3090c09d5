package dbcli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// `ql workers` connects as the admin (or runtime) role alone, not through
// the backend every other command opens; it must still refuse a database
// of another build before it reads or writes, as those commands do: going
// back, the older binary's `ql workers` after the newer build migrated
// (exit 4, naming the migration it does not know and what to do), and
// upgrading, the newer binary's before `ql db migrate` (naming the
// command that cures it). No credential is made, drained or listed then.
func TestWorkersCommandsRefuseADatabaseOfAnotherBuildBeforeTheyReadOrWrite(t *testing.T) {
	t.Parallel()
	newest := pgstore.Stream()[len(pgstore.Stream())-1]
	future := fmt.Sprintf("pg-%04d-future", newest.Seq+1)
	cases := []struct {
		name, code, says string
		conflict         bool
		tamper           func(c *clustertest.Env)
	}{
		{"migrated by a newer build", pgstore.CodeHistoryAhead, future, true, func(c *clustertest.Env) {
			c.Exec(t, `INSERT INTO qinglong.schema_migrations VALUES ($1, $2, 'sha256:'||repeat('c', 64), 0)`, newest.Seq+1, future)
		}},
		{"not yet migrated for this build", pgstore.CodeHistoryBehind, "run `ql db migrate`", false, func(c *clustertest.Env) {
			c.Exec(t, `DELETE FROM qinglong.schema_migrations WHERE seq = $1`, newest.Seq)
		}},
	}
	for _, k := range cases {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			c := clustertest.New(t)
			admin := map[string]string{EnvAdminURL: c.URL(pgstore.RoleAdmin)}
			if _, _, err := workers(t, admin, "create", "build-01"); err != nil {
				t.Fatal(err)
			}
			k.tamper(c)
			runtime := map[string]string{EnvURL: c.URL(pgstore.RoleRuntime)}
			for _, run := range []struct {
				env  map[string]string
				args []string
			}{{admin, []string{"create", "build-02"}}, {admin, []string{"drain", "build-01"}}, {admin, []string{"rotate", "build-01"}},
				{admin, []string{"list"}}, {runtime, []string{"list"}}} {
				out, _, err := workers(t, run.env, run.args...)
				if err == nil || !strings.Contains(err.Error(), "("+k.code+")") || !strings.Contains(err.Error(), k.says) ||
					qlerror.Is(err, qlerror.FailedPrecondition) != k.conflict || out != "" {
					t.Errorf("ql workers %s: %v, printed %q; want it refused naming %s and saying %q (a conflict, exit 4: %t)",
						strings.Join(run.args, " "), err, out, k.code, k.says, k.conflict)
				}
			}
			if n := c.Int(t, `SELECT count(*) FROM qinglong.workers`); n != 1 {
				t.Errorf("%d workers after the refused commands; want build-01 alone", n)
			}
			if n := c.Int(t, `SELECT count(*) FROM qinglong.workers WHERE state <> 'active'`); n != 0 {
				t.Errorf("the refused drain drained build-01")
			}
		})
	}
}
