package replica

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A cluster replica serves the web console on its API listener: a token
// the admin role created signs in, the overview and triggers show the
// cluster's trigger, the trigger page offers pause, run now and backfill
// (the runtime role may do all three; a backfill previews, then creates
// its Runs), and revoking the token ends its session at once.
func TestTheClusterReplicaServesTheConsoleAndRevocationEndsItsSessions(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("web", 1, clustertest.QuietCron()))
	admin := env.URL(pgstore.RoleAdmin)
	code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "tokens", "create", "ops", "--scope", "operate")
	secret := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	if code != 0 {
		t.Fatalf("tokens create: exit %d %q", code, out)
	}
	r := startReplica(t, bin, env, "replica-web")
	r.await(t, CodeReady, 30*time.Second)
	base := "http://" + r.addr
	c, get := consoleBrowser(t, base)
	resp := consoleSignIn(t, c, get, base, url.Values{"token": {secret}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("sign-in: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, page := get("/triggers")
	link := regexp.MustCompile(`href="(/triggers/[0-9a-f-]{36})"`).FindStringSubmatch(page)
	if resp.StatusCode != http.StatusOK || link == nil {
		t.Fatalf("triggers page: %d without the cluster's trigger:\n%s", resp.StatusCode, page)
	}
	if _, page = get(link[1]); !strings.Contains(page, `id="runnow"`) || !strings.Contains(page, `id="pause"`) {
		t.Fatalf("the trigger page on a replica should offer run now and pause:\n%s", page)
	}
	consoleBackfill(t, c, base, link[1], page)
	// The backfill's Runs are the trigger's: the list shows its last one.
	if _, page = get("/triggers"); !strings.Contains(page, `class="last-run"><a href="/runs/`) {
		t.Fatalf("the triggers list on a replica does not show the trigger's last Run:\n%s", page)
	}
	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "tokens", "revoke", "ops"); code != 0 {
		t.Fatalf("revoke: exit %d %q", code, out)
	}
	if resp, _ = get("/runs"); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/signin?next=%2Fruns" {
		t.Fatalf("after revocation /runs answered %d to %q, want 303 to sign in and back", resp.StatusCode, resp.Header.Get("Location"))
	}

	// A user the admin role created signs in on the replica (which runs as
	// the runtime role and records the sign-in), sees the cluster's
	// overview and workers page, is offered no tokens page (the runtime
	// role cannot manage tokens); a new password ends its session and the
	// new one signs in, and disabling it ends that session.
	const pw, newPW = "correct horse battery", "battery staple horse"
	users := func(stdin string, args ...string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"users"}, args...)...)
		cmd.Env = append(os.Environ(), "QL_DATABASE_URL="+admin, "QL_HTTP_ADDR=")
		cmd.Stdin = strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("users %v: %v %q", args, err, out)
		}
	}
	signInUser := func(password string) {
		t.Helper()
		if resp := consoleSignIn(t, c, get, base, url.Values{"user": {"web-owner"}, "password": {password}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("user sign-in on a replica: %d", resp.StatusCode)
		}
	}
	signedOut := func(after string) {
		t.Helper()
		if resp, _ := get("/"); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/signin" {
			t.Fatalf("after %s / answered %d, want 303 to /signin", after, resp.StatusCode)
		}
	}
	users(pw+"\n", "create", "web-owner", "--owner", "--password-stdin")
	signInUser(pw)
	if _, page = get("/"); !strings.Contains(page, `id="fleet"`) || !strings.Contains(page, `id="backlog"`) || !strings.Contains(page, `href="/workers"`) || strings.Contains(page, `href="/tokens"`) {
		t.Fatalf("the cluster overview lacks workers or backlog, or offers tokens:\n%s", page)
	}
	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "workers", "create", "gpu-box", "--labels", "region=eu,gpu=true"); code != 0 {
		t.Fatalf("workers create: exit %d %q", code, out)
	}
	// The workers page names each worker's labels, which a task's
	// placement must find all of.
	if resp, page = get("/workers"); resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="workers"`) || !strings.Contains(page, "<code><bdi>gpu=true,region=eu</bdi></code>") {
		t.Fatalf("workers page: %d, want the worker gpu-box with its labels\n%s", resp.StatusCode, page)
	}
	// Once its process runs with labels of its own (ql-worker --labels),
	// the page shows the session's, which placement matches, as the
	// waiting reason names them: the credential's plus the process's.
	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "workers", "create", "sec-box"); code != 0 {
		t.Fatalf("workers create: exit %d %q", code, out)
	} else {
		var cred string
		for _, f := range strings.Fields(out) {
			if strings.HasPrefix(f, workerproto.CredentialPrefix) {
				cred = f
			}
		}
		rt := env.Runtime(t, "console-test", 30*time.Second)
		id, err := rt.AuthenticateWorker(t.Context(), cred)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rt.RegisterWorker(t.Context(), id, workerproto.RegisterRequest{Capacity: 1, Version: "test", Labels: map[string]string{"sec": "yes"}}, pgstore.WorkerSettings{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, page = get("/workers"); !strings.Contains(page, "<code><bdi>sec=yes</bdi></code>") {
		t.Fatalf("workers page: want sec-box with its session's labels sec=yes\n%s", page)
	}
	// The workers run the commands and hold the secrets: a replica's
	// console offers no secrets page, and its address says, in either
	// language, where secrets are kept and how to set one.
	if strings.Contains(page, `href="/secrets"`) {
		t.Fatalf("a replica's console offers the secrets page:\n%s", page)
	}
	for lang, want := range map[string]string{"en": "each machine that runs the commands reads them from its own secrets file", "zh": "每台执行命令的机器从它自己的密钥文件读取密钥"} {
		if resp, page = get("/secrets?lang=" + lang); resp.StatusCode != http.StatusOK || !strings.Contains(page, want) || !strings.Contains(page, "ql secrets set") || strings.Contains(page, `id="sec-form"`) {
			t.Fatalf("/secrets?lang=%s on a replica: %d, want 200 saying %q and naming ql secrets set, with no form\n%s", lang, resp.StatusCode, want, page)
		}
	}
	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "users", "list", "-o", "json"); code != 0 || !regexp.MustCompile(`"lastSigninAtMs": [0-9]+`).MatchString(out) {
		t.Fatalf("users list after a replica's sign-in: exit %d %q", code, out)
	}
	users(newPW+"\n", "passwd", "web-owner", "--password-stdin")
	signedOut("a new password")
	signInUser(newPW)
	if resp, _ = get("/"); resp.StatusCode != http.StatusOK {
		t.Fatalf("signed in with the new password, / answered %d", resp.StatusCode)
	}
	users("", "disable", "web-owner")
	signedOut("disabling the user")

	// A graceful stop marks the replica's heartbeat stopped: the overview
	// no longer counts it, without waiting for the row to expire.
	r.signal(t, syscall.SIGTERM, 15*time.Second)
	if n := env.Int(t, `SELECT count(*) FROM qinglong.replica_heartbeats WHERE replica_id = 'replica-web' AND stopped_at_ms IS NOT NULL`); n != 1 {
		t.Fatalf("after a graceful stop the replica's heartbeat is not marked stopped (%d rows)", n)
	}
}

// In a real browser against a cluster replica: sign in, see the overview,
// run a trigger now and land on its Run (queued: no worker yet, which the
// page says), start a real remote worker and watch the notice go, the
// state line leave queued for running, the attempt's row say it runs and
// offer its log so far, and the Run's output arrive live on that page
// without reloading it, cancel the running Run and see it
// cancelled, look at it at phone size, sign out, and be sent to sign-in
// without a session.
func TestTheClusterConsoleInABrowser(t *testing.T) {
	bin := buildQL(t)
	env := clustertest.New(t)
	defs := strings.Replace(clustertest.Triggers("web", 1, clustertest.QuietCron()),
		"script: echo hi", "script: for i in 1 2 3; do echo line $i; sleep 0.2; done; sleep 300", 1)
	if !strings.Contains(defs, "line $i") {
		t.Fatalf("the definitions did not get their long-running script:\n%s", defs)
	}
	env.Apply(t, defs)
	code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleAdmin)}, "tokens", "create", "ops", "--scope", "operate")
	if code != 0 {
		t.Fatalf("tokens create: exit %d %q", code, out)
	}
	secret := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	// A short run lease: the worker renews every third of it and learns of
	// the cancel on its next renewal.
	r := startReplica(t, bin, env, "replica-browser", "--run-lease", "3s")
	r.await(t, CodeReady, 30*time.Second)
	ctx := browsertest.Start(t)
	base := "http://" + r.addr

	browsertest.Step(t, ctx, "sign in", chromedp.Navigate(base+"/"),
		browsertest.SignInWithToken(secret, "Overview"))
	// The replica wrote its first heartbeat as it activated, long before
	// the browser started and signed in.
	if live := browsertest.Value(t, ctx, chromedp.Text(chromedp.ID("replicas-live"))); live != "Replicas: 1 live" {
		t.Fatalf("the overview shows %q, want one live replica", live)
	}
	if row := browsertest.Value(t, ctx, chromedp.Text(chromedp.CSS("#replicas tbody tr"))); !strings.Contains(row, strconv.Itoa(r.cmd.Process.Pid)) {
		t.Fatalf("the overview's replica row %q lacks the replica's pid %d", row, r.cmd.Process.Pid)
	}
	browsertest.Step(t, ctx, "run a trigger now", chromedp.Navigate(base+"/triggers"),
		chromedp.Click(chromedp.CSS("button.runnow")),
		browsertest.WaitText("main h1", "Run"),
		chromedp.WaitVisible(chromedp.ID("run-state")))
	if loc := browsertest.Value(t, ctx, chromedp.Location()); !strings.Contains(loc, "/runs/") {
		t.Fatalf("run now led to %s, want the run's page", loc)
	}
	// The page was rendered before any worker existed and is not loaded
	// again (the mark set on it stays), so every line it shows came over
	// its event stream.
	if st := browsertest.Value(t, ctx, chromedp.Text(chromedp.CSS("#run-state"))); st != "queued" {
		t.Fatalf("with no worker the run is %q, want queued", st)
	}
	if why := browsertest.Value(t, ctx, chromedp.Text(chromedp.ID("run-waiting"))); !strings.Contains(why, "No worker is connected") {
		t.Fatalf("with no worker the run page says it waits because %q, want that no worker is connected", why)
	}
	browsertest.Value(t, ctx, chromedp.Evaluate[bool]("window.qlRendered = true"))
	startWorker(t, bin, env, r, "worker-browser")
	browsertest.Step(t, ctx, "watch the log arrive live", browsertest.WaitText("#log", "line 3\n"),
		browsertest.WaitText("#attempts td.attempt-state", "running"), browsertest.WaitText("#attempts td.attempt-download", "Download log (so far)"))
	if !browsertest.Value(t, ctx, chromedp.Evaluate[bool]("window.qlRendered === true")) {
		t.Fatal("the run page was loaded again before its output and its attempt running showed; want both over its event stream")
	}
	// The notice goes (the facts sent again have none) or is hidden.
	if !browsertest.Value(t, ctx, chromedp.Evaluate[bool](`(document.getElementById("run-waiting") || {hidden: true}).hidden`)) {
		t.Fatal("the run's output shows and the page still says why it waits; want the stream to take the notice away")
	}
	// The stream says the Run runs ahead of the output it brings.
	if st := browsertest.Value(t, ctx, chromedp.Evaluate[string](`(() => { const e = document.getElementById("run-state");
		return e.textContent + " " + e.getAttribute("data-state") })()`)); st != "running running" {
		t.Fatalf("the run's output shows and its state line says %q (text, data-state); want running", st)
	}
	browsertest.Step(t, ctx, "cancel the running run", chromedp.Click(chromedp.ID("cancel-ask")), chromedp.Click(chromedp.ID("cancel")),
		browsertest.WaitText("#run-state", "cancelled"))
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "the run at phone size", chromedp.EmulateViewport(390, 844), chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("run-state")))
	browsertest.Screenshot(t, ctx, dir, "cluster-run-390x844.png", 390)
	browsertest.Step(t, ctx, "sign out", browsertest.OpenMenu(), chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("token")))
	browsertest.Step(t, ctx, "refused without a session", chromedp.Navigate(base+"/runs"), chromedp.WaitVisible(chromedp.ID("token")))
	if loc := browsertest.Value(t, ctx, chromedp.Location()); !strings.HasSuffix(loc, "/signin?next=%2Fruns") {
		t.Fatalf("without a session /runs led to %s, want /signin?next=%%2Fruns", loc)
	}
	browsertest.Step(t, ctx, "signed in again, back at the page asked for", browsertest.SignInWithToken(secret, "Runs"))
	if loc := browsertest.Value(t, ctx, chromedp.Location()); !strings.HasSuffix(loc, "/runs") {
		t.Fatalf("the sign-in from /runs led to %s, want back to /runs", loc)
	}
}

// startWorker starts `ql worker` with a new credential against r's worker
// ingress and waits until it registered; it is stopped when the test ends.
func startWorker(t *testing.T, bin string, env *clustertest.Env, r *child, name string) {
	t.Helper()
	admin, err := pgstore.OpenAdmin(t.Context(), env.URL(pgstore.RoleAdmin))
	if err != nil {
		t.Fatal(err)
	}
	cred, err := admin.WorkerCreate(t.Context(), name, nil, 1)
	admin.Close()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	credFile := filepath.Join(dir, "cred")
	if err := os.WriteFile(credFile, []byte(cred+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, _ := r.await(t, CodeWorkerListening, 10*time.Second)["addr"].(string)
	cmd := exec.Command(bin, "worker", "--server", "http://"+addr, "--credential-file", credFile,
		"--data-dir", filepath.Join(dir, "data"), "--concurrency", "1", "--stop-timeout", "1s")
	cmd.Env = os.Environ()
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("worker %s log:\n%s", name, out)
		}
	})
	eventually(t, 20*time.Second, "worker "+name+" to register", func() bool {
		return strings.Contains(out.String(), `"code":"worker_registered"`)
	})
}

// consoleBrowser is a client of the console at base that keeps its cookies
// and stops at redirects, and get, which reads a page with it.
func consoleBrowser(t *testing.T, base string) (*http.Client, func(path string) (*http.Response, string)) {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	// A form that succeeded answers 303 to the page showing what it did
	// (?flash=), which a browser follows at once; no other redirect is
	// followed, so a test sees each answer itself.
	c := &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if req.URL.Query().Has("flash") {
			return nil
		}
		return http.ErrUseLastResponse
	}}
	return c, func(path string) (*http.Response, string) {
		t.Helper()
		resp, err := c.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
}

// consoleSignIn posts the sign-in form with form's fields and the CSRF
// value its page gave, and returns the answer (its body closed).
func consoleSignIn(t *testing.T, c *http.Client, get func(string) (*http.Response, string), base string, form url.Values) *http.Response {
	t.Helper()
	_, page := get("/signin")
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("sign-in page without a CSRF field:\n%s", page)
	}
	form.Set("csrf", m[1])
	resp, err := c.PostForm(base+"/signin", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}
