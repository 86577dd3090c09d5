package replica

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A replica's database role may neither create accounts nor change
// passwords: started on a database without any account it offers no
// setup page and logs no setup code, and a user's account page gives the
// `ql users passwd` command instead of a form.
func TestAClusterReplicaLeavesAccountsToTheAdminRole(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	r := startReplica(t, bin, env, "replica-accounts")
	r.await(t, CodeReady, 30*time.Second)
	base := "http://" + r.addr
	c, get := consoleBrowser(t, base)
	if resp, page := get("/setup"); resp.StatusCode != http.StatusNotFound || !strings.Contains(page, "ql users create") {
		t.Fatalf("a replica's setup page: %d, want 404 giving the command\n%s", resp.StatusCode, page)
	}
	if _, page := get("/signin"); strings.Contains(page, `href="/setup"`) {
		t.Fatalf("a replica's sign-in page offers the setup page:\n%s", page)
	}
	if strings.Contains(r.logs.String(), "console.setup_code") {
		t.Fatalf("a replica logged a setup code:\n%s", r.logs)
	}
	admin := env.URL(pgstore.RoleAdmin)
	if code, out := runQLIn(t, bin, "correct horse battery\n", []string{"QL_DATABASE_URL=" + admin}, "users", "create", "lead", "--owner", "--password-stdin"); code != 0 {
		t.Fatalf("users create: exit %d %q", code, out)
	}
	if resp := consoleSignIn(t, c, get, base, url.Values{"user": {"lead"}, "password": {"correct horse battery"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	resp, page := get("/account")
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="password-cli"`) || !strings.Contains(page, "ql users passwd lead") || strings.Contains(page, `id="password-form"`) {
		t.Fatalf("a replica's account page: %d, want the passwd command and no form\n%s", resp.StatusCode, page)
	}
}
