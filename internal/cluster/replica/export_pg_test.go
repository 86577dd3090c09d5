package replica

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// `ql export` reads a project with the admin or the runtime role's URL,
// and over a replica's API (a replica runs as the runtime role) the same
// bytes; the export applies back with every object unchanged; a role that
// may not read the catalog is told which roles may, and an API token of
// too small a scope which scope it needs.
func TestExportReadsTheSameFileWithEitherRoleAndOverAReplicasAPI(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	admin := "QL_DATABASE_URL=" + env.URL(pgstore.RoleAdmin)
	dir := t.TempDir()
	defs := filepath.Join(dir, "rich.yaml")
	if err := os.WriteFile(defs, []byte(storetest.EveryField), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := runQL(t, bin, []string{admin}, "apply", "-f", defs); code != 0 {
		t.Fatalf("apply: exit %d %q", code, out)
	}
	export := func(name string, env ...string) []byte {
		t.Helper()
		path := filepath.Join(dir, name)
		if code, out := runQL(t, bin, env, "export", "rich", "-o", path); code != 0 || !strings.Contains(out, "wrote project rich (3 tasks, 2 triggers)") {
			t.Fatalf("export (%s): exit %d %q", name, code, out)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	byAdmin := export("admin.yaml", admin)
	if byRuntime := export("runtime.yaml", "QL_DATABASE_URL="+env.URL(pgstore.RoleRuntime)); !bytes.Equal(byRuntime, byAdmin) {
		t.Fatalf("the runtime role's export differs from the admin role's:\n%s\n---\n%s", byRuntime, byAdmin)
	}
	r := startReplica(t, bin, env, "replica-export")
	r.await(t, CodeReady, 30*time.Second)
	api := "QL_API_URL=http://" + r.addr
	if byAPI := export("api.yaml", api, "QL_TOKEN="+env.Token(t, "exporter", apitoken.Admin)); !bytes.Equal(byAPI, byAdmin) {
		t.Fatalf("the replica's export differs from the database's:\n%s\n---\n%s", byAPI, byAdmin)
	}

	code, out := runQL(t, bin, []string{admin}, "apply", "-f", filepath.Join(dir, "admin.yaml"))
	if code != 0 || !strings.Contains(out, "1 project, 3 tasks and 2 triggers unchanged\n") || strings.Contains(out, ": unchanged") {
		t.Fatalf("applying the export: exit %d %q; want the project, 3 tasks and 2 triggers unchanged", code, out)
	}
	code, out = runQL(t, bin, []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleMaintenance)}, "export", "rich")
	if code != 5 || !strings.Contains(out, "exporting definitions needs the admin or the runtime role's URL") {
		t.Fatalf("export as the maintenance role: exit %d %q; want exit 5 (not allowed) naming the roles that may", code, out)
	}
	code, out = runQL(t, bin, []string{api, "QL_TOKEN=" + env.Token(t, "operator", apitoken.Operate)}, "export", "rich")
	if code != 5 || !strings.Contains(out, "needs a token of scope admin") {
		t.Fatalf("export over the API with an operate token: exit %d %q; want exit 5 naming scope admin", code, out)
	}
}
