package replica

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A --database-url typed on the command line of `ql retention run` and of
// `ql projects delete` wins over $QL_DATABASE_MAINTENANCE_URL, as every
// flag typed wins over its variable: here the variable names the runtime
// role, which may not delete, and the maintenance role typed does the work.
// A --database-url from a server's --config file is not typed: the
// variable wins over it.
func TestADatabaseURLTypedOnTheCommandLineWinsOverTheMaintenanceVariable(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	file := "project: old\nstatus: archived\ntasks:\n  - name: job\n    script: echo hi\ntriggers:\n  - {name: tick, task: job, cron: '" + clustertest.QuietCron() + "', timezone: UTC}\n"
	env.Apply(t, strings.Replace(file, "archived", "active", 1), file)
	typed, err := url.Parse(env.URL(pgstore.RoleMaintenance))
	if err != nil {
		t.Fatal(err)
	}
	password, _ := typed.User.Password()
	typed.User = url.User(typed.User.Username())
	vars := []string{"QL_DATABASE_MAINTENANCE_URL=" + env.URL(pgstore.RoleRuntime), "PGPASSWORD=" + password}
	if code, out, errOut := runQLSplit(t, bin, vars, "retention", "run", "--database-url", typed.String()); code != 0 {
		t.Errorf("retention run --database-url MAINTENANCE with the variable naming the runtime role: exit %d %q %q; want the typed URL used", code, out, errOut)
	}
	// A server's --config holds the runtime role's URL, which may not
	// delete: given to retention run for its settings, it does not win
	// over the maintenance role's variable.
	runtime, err := url.Parse(env.URL(pgstore.RoleRuntime))
	if err != nil {
		t.Fatal(err)
	}
	runtime.User = url.User(runtime.User.Username())
	config := filepath.Join(t.TempDir(), "ql.yaml")
	if err := os.WriteFile(config, []byte("database-url: "+runtime.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runQLSplit(t, bin, []string{"QL_DATABASE_MAINTENANCE_URL=" + env.URL(pgstore.RoleMaintenance)}, "retention", "run", "--config", config); code != 0 {
		t.Errorf("retention run --config FILE whose database-url is the runtime role's, with the variable naming the maintenance role: exit %d %q %q; want the variable used", code, out, errOut)
	}
	code, out, errOut := runQLSplit(t, bin, vars, "projects", "delete", "old", "--yes", "--database-url", typed.String())
	if code != 0 || env.Int(t, "SELECT count(*) FROM qinglong.projects WHERE name = 'old'") != 0 {
		t.Errorf("projects delete --database-url MAINTENANCE with the variable naming the runtime role: exit %d %q %q; want the typed URL used", code, out, errOut)
	}
}
