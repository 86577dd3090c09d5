package replica

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/console"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

const (
	leadPassword = "correct horse battery"
	newPassword  = "a whole new password"
)

var (
	setupCodeIn = regexp.MustCompile(`setup code ((?:[A-Z2-7]{4}-){7}[A-Z2-7]{4}) `)
	csrfIn      = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
)

// setupCodeOf waits for the replica's setup code line, a WARN naming the
// replica's setup page, and returns the code.
func setupCodeOf(t *testing.T, r *child) string {
	t.Helper()
	line := r.await(t, console.CodeSetupCode, 30*time.Second)
	msg, _ := line["msg"].(string)
	m := setupCodeIn.FindStringSubmatch(msg)
	if line["level"] != "WARN" || m == nil || !strings.Contains(msg, "http://"+r.addr+"/setup") {
		t.Fatalf("replica %s's setup code line: %v; want a WARN with the code and its setup page", r.owner, line)
	}
	return m[1]
}

// formCSRF fetches a page for c and returns its form's CSRF value.
func formCSRF(t *testing.T, c *http.Client, page string) string {
	t.Helper()
	resp, body := httpcall.Form(t, c, http.MethodGet, page, nil)
	m := csrfIn.FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("%s: %d without a form\n%s", page, resp.StatusCode, body)
	}
	return m[1]
}

func postSetup(t *testing.T, c *http.Client, base, code string) (*http.Response, string) {
	t.Helper()
	csrf := formCSRF(t, c, base+"/setup")
	return httpcall.Form(t, c, http.MethodPost, base+"/setup", url.Values{"csrf": {csrf}, "user": {"lead"}, "password": {leadPassword}, "password2": {leadPassword}, "code": {code}})
}

// Two replicas started on a database without any account each log a setup
// code of their own. The first one used creates the owner, signed in at
// once, through the runtime role's database function; the other
// replica's setup page is gone and its code creates nothing, and the owner
// signs in there with its password. A replica started afterwards logs no
// code.
func TestTheFirstOwnerIsCreatedOnAReplicaAndTheOtherReplicasCodeStopsWorking(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	a, b := startReplica(t, bin, env, "replica-a"), startReplica(t, bin, env, "replica-b")
	codeA, codeB := setupCodeOf(t, a), setupCodeOf(t, b)
	if codeA == codeB {
		t.Fatalf("both replicas logged the code %s; want one each", codeA)
	}
	baseA, baseB := "http://"+a.addr, "http://"+b.addr
	c, get := consoleBrowser(t, baseA)
	if _, page := get("/signin"); !strings.Contains(page, `href="/setup"`) {
		t.Fatalf("a replica without accounts offers no setup page on its sign-in page:\n%s", page)
	}
	if resp, body := postSetup(t, c, baseA, codeB); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("replica a took replica b's code: %d\n%s", resp.StatusCode, body)
	}
	resp, body := postSetup(t, c, baseA, codeA)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("setup with replica a's code: %d to %q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	if resp, page := get("/account"); resp.StatusCode != http.StatusOK || !strings.Contains(page, "lead") || !strings.Contains(page, `id="password-form"`) {
		t.Fatalf("the new owner is not signed in on replica a with a password form: %d\n%s", resp.StatusCode, page)
	}
	a.await(t, console.CodeFirstOwnerCreated, 10*time.Second)

	cb, getB := consoleBrowser(t, baseB)
	if resp, page := getB("/setup"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("replica b's setup page once an owner exists: %d, want 404\n%s", resp.StatusCode, page)
	}
	if _, page := getB("/signin"); strings.Contains(page, `href="/setup"`) {
		t.Fatalf("replica b's sign-in page still offers the setup page:\n%s", page)
	}
	if resp := consoleSignIn(t, cb, getB, baseB, url.Values{"user": {"lead"}, "password": {leadPassword}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the owner signing in on replica b: %d", resp.StatusCode)
	}
	if strings.Contains(a.logs.String(), leadPassword) || strings.Contains(a.logs.String(), "argon2id") {
		t.Fatalf("replica a logged the password or its hash:\n%s", a.logs)
	}

	// A replica started once an account exists logs no code at all.
	late := startReplica(t, bin, env, "replica-late")
	late.await(t, CodeReady, 30*time.Second)
	if _, getLate := consoleBrowser(t, "http://"+late.addr); strings.Contains(late.logs.String(), console.CodeSetupCode) {
		t.Fatalf("a replica started with an account logged a setup code:\n%s", late.logs)
	} else if resp, page := getLate("/setup"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the setup page of a replica started with an account: %d, want 404\n%s", resp.StatusCode, page)
	}
}

// A user changes their own password on one replica's account page: that
// browser stays signed in, the user's session on another replica ends at
// its next request (each replica checks the password's stamp in the
// database), and only the new password signs in.
func TestAPasswordChangedOnOneReplicaEndsTheUsersSessionsOnTheOthers(t *testing.T) {
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
	ca, getA := consoleBrowser(t, baseA)
	cb, getB := consoleBrowser(t, baseB)
	for _, s := range []struct {
		c    *http.Client
		get  func(string) (*http.Response, string)
		base string
	}{{ca, getA, baseA}, {cb, getB, baseB}} {
		if resp := consoleSignIn(t, s.c, s.get, s.base, url.Values{"user": {"lead"}, "password": {leadPassword}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-in on %s: %d", s.base, resp.StatusCode)
		}
	}
	csrf := formCSRF(t, ca, baseA+"/account")
	resp, body := httpcall.Form(t, ca, http.MethodPost, baseA+"/account/password", url.Values{"csrf": {csrf}, "current": {leadPassword}, "password": {newPassword}, "password2": {newPassword}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/account?changed" {
		t.Fatalf("password change on replica a: %d to %q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	if resp, page := getA("/account?changed"); resp.StatusCode != http.StatusOK || !strings.Contains(page, "Your password is changed") {
		t.Fatalf("replica a's browser after the change: %d, want it signed in and told\n%s", resp.StatusCode, page)
	}
	if resp, _ := getB("/"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/signin") {
		t.Fatalf("the user's session on replica b after the change: %d to %q, want it signed out", resp.StatusCode, resp.Header.Get("Location"))
	}
	fresh, getFresh := consoleBrowser(t, baseB)
	if resp := consoleSignIn(t, fresh, getFresh, baseB, url.Values{"user": {"lead"}, "password": {leadPassword}}); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the old password on replica b: %d, want 401", resp.StatusCode)
	}
	if resp := consoleSignIn(t, fresh, getFresh, baseB, url.Values{"user": {"lead"}, "password": {newPassword}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the new password on replica b: %d, want signed in", resp.StatusCode)
	}
	a.await(t, console.CodePasswordChanged, 10*time.Second)
}
