package replica

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// `ql projects delete` on the cluster deletes an archived project as the
// maintenance role ($QL_DATABASE_MAINTENANCE_URL), saying where the
// project's secrets are left to remove; the runtime role's URL, which may
// not delete Runs, is refused naming the role it needs, and deletes
// nothing.
func TestProjectsDeleteOnTheClusterDeletesAsTheMaintenanceRole(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	file := "project: old\nstatus: %s\ntasks:\n  - name: job\n    script: echo hi\ntriggers:\n  - {name: tick, task: job, cron: '" + clustertest.QuietCron() + "', timezone: UTC}\n"
	env.Apply(t, strings.Replace(file, "%s", "active", 1), strings.Replace(file, "%s", "archived", 1))
	code, out, errOut := runQLSplit(t, bin, []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleRuntime)}, "projects", "delete", "old", "--yes")
	if code == 0 || !strings.Contains(out+errOut, "maintenance") || env.Int(t, "SELECT count(*) FROM qinglong.projects WHERE name = 'old'") != 1 {
		t.Fatalf("delete with the runtime role: exit %d %q %q; want it refused naming the maintenance role, the project kept", code, out, errOut)
	}
	maint := []string{"QL_DATABASE_MAINTENANCE_URL=" + env.URL(pgstore.RoleMaintenance)}
	if code, out, errOut := runQLSplit(t, bin, maint, "projects", "delete", "old", "--dry-run"); code != 0 || !strings.Contains(out, "deleting it would remove 1 task, 1 trigger") {
		t.Fatalf("dry run: exit %d %q %q", code, out, errOut)
	}
	code, out, errOut = runQLSplit(t, bin, maint, "projects", "delete", "old", "--yes")
	if code != 0 || !strings.Contains(out, "deleted project old") || !strings.Contains(out, "--secrets-file") {
		t.Fatalf("delete: exit %d %q %q; want it deleted, naming where the secrets are left", code, out, errOut)
	}
	for _, table := range []string{"projects", "tasks", "triggers", "trigger_schedules"} {
		if n := env.Int(t, "SELECT count(*) FROM qinglong."+table); n != 0 {
			t.Errorf("%s holds %d rows after the deletion", table, n)
		}
	}
}
