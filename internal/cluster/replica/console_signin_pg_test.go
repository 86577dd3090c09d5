package replica

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The sign-in form is the cluster's, not one replica's: a page loaded
// from one replica and posted to another (a balancer that does not keep
// a browser on one replica) signs in there, its value being checked
// against nothing a replica keeps.
func TestASigninPageFromOneReplicaSignsInOnAnother(t *testing.T) {
	t.Parallel()
	a, b := leadReplicas(t)
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
