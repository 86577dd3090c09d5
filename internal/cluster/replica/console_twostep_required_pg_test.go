package replica

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// Two-step sign-in required by the owner on one replica's account page
// walls a user without it at the other replica from the very next page,
// the session signed in there before included, and stopping it there
// frees them at once; required by `ql users require-two-step on` with
// the admin role's URL, it walls them again, and the command names them.
// At the wall, the header offers sign-out and not the pages.
// Each replica reads the setting from the database at every request.
func TestEveryReplicaWallsAtOnceWhenTwoStepIsRequiredAnywhere(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	admin := []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleAdmin)}
	for _, u := range [][]string{{"lead", "--owner"}, {"vera", "--role", "viewer"}} {
		if code, out := runQLIn(t, bin, leadPassword+"\n", admin, append([]string{"users", "create", "--password-stdin"}, u...)...); code != 0 {
			t.Fatalf("users create %s: exit %d %q", u[0], code, out)
		}
	}
	a, b := startReplica(t, bin, env, "replica-a"), startReplica(t, bin, env, "replica-b")
	a.await(t, CodeReady, 30*time.Second)
	b.await(t, CodeReady, 30*time.Second)
	baseA, baseB := "http://"+a.addr, "http://"+b.addr
	lead, leadCSRF, _ := leadTwoStepAt(t, baseA)
	vera, getB := consoleBrowser(t, baseB)
	if resp := consoleSignIn(t, vera, getB, baseB, url.Values{"user": {"vera"}, "password": {leadPassword}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("vera's sign-in on replica b: %d", resp.StatusCode)
	}
	veraWalled := func(want bool) {
		t.Helper()
		resp, _ := getB("/runs")
		walled := resp.StatusCode == http.StatusSeeOther && resp.Header.Get("Location") == "/account#two-step"
		if walled != want || !walled && resp.StatusCode != http.StatusOK {
			t.Fatalf("vera's Runs page on replica b: %d to %q; want walled %v", resp.StatusCode, resp.Header.Get("Location"), want)
		}
	}
	require := func(on string) {
		t.Helper()
		if resp, body := httpcall.Form(t, lead, http.MethodPost, baseA+"/account/two-step/required", url.Values{"csrf": {leadCSRF}, "required": {on}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("require %s on replica a: %d\n%s", on, resp.StatusCode, body)
		}
	}
	veraWalled(false)
	require("on")
	veraWalled(true)
	if _, page := getB("/account"); !strings.Contains(page, `id="two-step-required"`) {
		t.Fatalf("vera's account page on replica b says nothing of the requirement:\n%s", page)
	} else if header, _, _ := strings.Cut(page, "</header>"); strings.Contains(header, `href="/runs"`) || !strings.Contains(header, `id="signout"`) {
		t.Fatalf("vera's header at the wall on replica b offers the pages or no sign-out:\n%s", header)
	}
	require("off")
	veraWalled(false)
	code, out := runQLIn(t, bin, "", admin, "users", "require-two-step", "on")
	if code != 0 || !strings.Contains(out, "1 without it (vera) can only set it up") {
		t.Fatalf("users require-two-step on with the admin role: exit %d %q", code, out)
	}
	veraWalled(true)
}
