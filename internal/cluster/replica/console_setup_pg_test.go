package replica

import (
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/console"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

const (
	leadPassword = "correct horse battery"
	newPassword  = "a whole new password"
)

var (
	setupCodeForm = regexp.MustCompile(`^((?:[A-Z2-7]{4}-){7}[A-Z2-7]{4})\n$`)
	// setupCodeIn is a setup code anywhere in a text.
	setupCodeIn = regexp.MustCompile(`(?:[A-Z2-7]{4}-){7}[A-Z2-7]{4}`)
	csrfIn      = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
)

// setupCodeOf waits for the replica's setup code line, a WARN naming the
// replica's setup page and the code's file in dir, and returns the code
// read from that file, which only the replica's user may read. The log
// holds no code.
func setupCodeOf(t *testing.T, r *child, dir string) string {
	t.Helper()
	line := r.await(t, console.CodeSetupCode, 30*time.Second)
	msg, _ := line["msg"].(string)
	file := filepath.Join(dir, account.SetupCodeFile)
	if line["level"] != "WARN" || !strings.Contains(msg, "http://"+r.addr+"/setup") || line["file"] != file {
		t.Fatalf("replica %s's setup code line: %v; want a WARN with its setup page and the code's file %s", r.owner, line, file)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("replica %s's setup code file %s: %v; want mode 0600", r.owner, file, err)
	}
	b, _ := os.ReadFile(file)
	m := setupCodeForm.FindStringSubmatch(string(b))
	if m == nil {
		t.Fatalf("replica %s's setup code file holds %q, not a code", r.owner, b)
	}
	if bare := strings.ReplaceAll(m[1], "-", ""); strings.Contains(r.logs.String(), m[1]) || strings.Contains(r.logs.String(), bare) {
		t.Fatalf("replica %s logged its setup code:\n%s", r.owner, r.logs)
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

// Two replicas started with --setup-code-dir on a database without any
// account each write a setup code of their own to their directory, and
// log only where it is. The first one used creates the owner, signed in at
// once, through the runtime role's database function; the other
// replica's setup page is gone and its code creates nothing, and the owner
// signs in there with its password. A replica started afterwards logs no
// code.
func TestTheFirstOwnerIsCreatedOnAReplicaAndTheOtherReplicasCodeStopsWorking(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	dirA, dirB := t.TempDir(), t.TempDir()
	a, b := startReplica(t, bin, env, "replica-a", "--setup-code-dir", dirA), startReplica(t, bin, env, "replica-b", "--setup-code-dir", dirB)
	codeA, codeB := setupCodeOf(t, a, dirA), setupCodeOf(t, b, dirB)
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
	if _, err := os.Stat(filepath.Join(dirA, account.SetupCodeFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("replica a's setup code file is still there once the owner exists (%v)", err)
	}

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
	late := startReplica(t, bin, env, "replica-late", "--setup-code-dir", t.TempDir())
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
	a, b := leadReplicas(t)
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

// A replica has no data directory: without --setup-code-dir it offers no
// setup page on a database without any account, and its line says how to
// create the first owner (the CLI with the admin role's URL) and holds no
// code. With it, its code's file goes when the replica stops.
func TestAReplicaLogsNoSetupCodeAndItsFileGoesWhenItStops(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	plain := startReplica(t, bin, env, "replica-plain")
	line := plain.await(t, console.CodeSetupCode, 30*time.Second)
	msg, _ := line["msg"].(string)
	if line["level"] != "WARN" || !strings.Contains(msg, "ql users create NAME --owner") || !strings.Contains(msg, "QL_DATABASE_ADMIN_URL") ||
		!strings.Contains(msg, "--setup-code-dir") || setupCodeIn.MatchString(plain.logs.String()) {
		t.Fatalf("a replica without --setup-code-dir on a database without accounts: %v; want a WARN naming the command and the flag, and no code", line)
	}
	_, get := consoleBrowser(t, "http://"+plain.addr)
	if resp, page := get("/setup"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the setup page of a replica without --setup-code-dir: %d, want 404\n%s", resp.StatusCode, page)
	}
	if _, page := get("/signin"); strings.Contains(page, `href="/setup"`) {
		t.Fatalf("the sign-in page of a replica without --setup-code-dir offers the setup page:\n%s", page)
	}

	dir := t.TempDir()
	stale := filepath.Join(dir, account.SetupCodeFile)
	if err := os.WriteFile(stale, []byte("AAAA-BBBB\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	given := startReplica(t, bin, env, "replica-given", "--setup-code-dir", dir)
	code := setupCodeOf(t, given, dir)
	given.signal(t, syscall.SIGTERM, 30*time.Second)
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the setup code's file (code %s) outlived its replica's stop (%v)", code, err)
	}
}

// leadReplicas starts two replicas, each ready, of a fresh cluster whose
// owner lead signs in with leadPassword.
func leadReplicas(t *testing.T) (a, b *child) {
	t.Helper()
	bin := buildQL(t)
	env := clustertest.New(t)
	if code, out := runQLIn(t, bin, leadPassword+"\n", []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleAdmin)}, "users", "create", "lead", "--owner", "--password-stdin"); code != 0 {
		t.Fatalf("users create: exit %d %q", code, out)
	}
	a, b = startReplica(t, bin, env, "replica-a"), startReplica(t, bin, env, "replica-b")
	a.await(t, CodeReady, 30*time.Second)
	b.await(t, CodeReady, 30*time.Second)
	return a, b
}
