package replica

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The sign-in form is the cluster's, not one replica's: a page loaded
// from one replica and posted to another (a balancer that does not keep
// a browser on one replica) signs in there, its value being checked
// against nothing a replica keeps.
func TestASigninPageFromOneReplicaSignsInOnAnother(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	if code, out := runQLIn(t, bin, leadPassword+"\n", []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleAdmin)}, "users", "create", "lead", "--owner", "--password-stdin"); code != 0 {
		t.Fatalf("users create: exit %d %q", code, out)
	}
	a, b := startReplica(t, bin, env, "replica-a"), startReplica(t, bin, env, "replica-b")
	a.await(t, CodeReady, 30*time.Second)
	b.await(t, CodeReady, 30*time.Second)
	baseA, baseB := "http://"+a.addr, "http://"+b.addr
	c, _ := consoleBrowser(t, baseA)
	csrf := formCSRF(t, c, baseA+"/signin")
	resp, body := httpcall.Form(t, c, http.MethodPost, baseB+"/signin", url.Values{"csrf": {csrf}, "user": {"lead"}, "password": {leadPassword}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("the sign-in page of replica a posted to replica b: %d to %q, want signed in\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	if resp, _ := httpcall.Form(t, c, http.MethodGet, baseB+"/account", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("replica b's account page after that sign-in: %d, want 200", resp.StatusCode)
	}
}
