package replica

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// retriedRun admits one Run of a task retried once after failing and has
// a worker run it twice: attempt 1 prints "first try" and fails, attempt
// 2 prints "second try" and succeeds. It returns the Run's id.
func retriedRun(t *testing.T, env *clustertest.Env, rt *pgstore.Runtime) string {
	t.Helper()
	id := admitRuns(t, env, rt, 1)[0]
	w := newFakeWorker(t, env, rt, "w-retry")
	_, lease := w.startOne(t)
	offset, _ := w.appendLog(t, lease, 0, "first try\n", pgstore.WorkerSettings{})
	if reply := w.exit(t, lease, 3, offset); reply.RunState != string(run.RetryWait) {
		t.Fatalf("the first attempt's failure left the run %s; want retry_wait", reply.RunState)
	}
	if res, err := rt.SweepLeases(t.Context(), 16); err != nil || res.Requeued != 1 {
		t.Fatalf("sweep: %+v, %v; want the retried run queued again", res, err)
	}
	g, lease := w.startOne(t)
	if g.RunID != id || g.AttemptNumber != 2 {
		t.Fatalf("second grant: run %s attempt %d; want attempt 2 of %s", g.RunID, g.AttemptNumber, id)
	}
	offset, _ = w.appendLog(t, lease, 0, "second try\n", pgstore.WorkerSettings{})
	w.exit(t, lease, 0, offset)
	return id
}

// On the cluster `ql runs logs --attempt N` prints the output of attempt
// N of a retried Run (by default the latest); with -f it returns once
// that attempt has ended; a number the Run does not have is refused with
// the numbers it has.
func TestRunsLogsAttemptPrintsEachAttemptsOutputOnTheCluster(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	rt := env.Runtime(t, "attempt-logs", 30*time.Second)
	id := retriedRun(t, env, rt)
	runtimeEnv := []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleRuntime)}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "second try\n"},
		{[]string{"--attempt", "1"}, "first try\n"},
		{[]string{"--attempt", "2"}, "second try\n"},
		{[]string{"--attempt", "1", "-f"}, "first try\n(attempt 1 of run " + id + " ended: failed; the run's state: succeeded)\n"},
	} {
		if code, out := runQL(t, bin, runtimeEnv, append([]string{"runs", "logs", id}, c.args...)...); code != 0 || out != c.want {
			t.Errorf("runs logs %v: exit %d %q; want %q", c.args, code, out, c.want)
		}
	}
	if code, out := runQL(t, bin, runtimeEnv, "runs", "logs", id, "--attempt", "3"); code != 1 || !strings.Contains(out, "run "+id+" has no attempt 3; its attempts are 1, 2") {
		t.Fatalf("runs logs --attempt 3: exit %d %q; want refused, naming attempts 1 and 2", code, out)
	}
}

// The console's run page links each attempt of a retried Run to its own
// log, and that page shows that ended attempt's output alone, as the
// server renders it (no stream for the script to follow), while its stream
// sends it once and ends; an attempt the Run does not have is a 404 naming
// the ones it has.
func TestTheConsoleShowsTheOutputOfEachAttemptOfARetriedRun(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	rt := env.Runtime(t, "attempt-console", 30*time.Second)
	id := retriedRun(t, env, rt)
	code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleAdmin)}, "tokens", "create", "viewer", "--scope", "read")
	if code != 0 {
		t.Fatalf("tokens create: exit %d %q", code, out)
	}
	secret := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	r := startReplica(t, bin, env, "replica-attempts")
	r.await(t, CodeReady, 30*time.Second)
	base := "http://" + r.addr
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := c.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	_, page := get("/signin")
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("sign-in page without a CSRF field:\n%s", page)
	}
	resp, err := c.PostForm(base+"/signin", url.Values{"csrf": {m[1]}, "token": {secret}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	status, page := get("/runs/" + id)
	for _, link := range []string{`href="/runs/` + id + `?attempt=1#log"`, `href="/runs/` + id + `?attempt=2#log"`} {
		if status != http.StatusOK || !strings.Contains(page, link) {
			t.Fatalf("the run page (%d) does not link %s:\n%s", status, link, page)
		}
	}
	for n, want := range map[string]string{"1": "first try\n", "2": "second try\n"} {
		status, page = get("/runs/" + id + "?attempt=" + n)
		if status != http.StatusOK || !strings.Contains(page, `<pre id="log">`+want+`</pre>`) || strings.Contains(page, "data-stream") || !strings.Contains(page, `id="log-latest"`) {
			t.Fatalf("the page of attempt %s (%d) does not show that attempt's output alone:\n%s", n, status, page)
		}
		status, stream := get("/runs/" + id + "/log?attempt=" + n)
		wantStream := "id: " + n + ":" + strconv.Itoa(len(want)) + "\nevent: log\ndata: " + strconv.Quote(want) + "\n\nevent: end\ndata: \"succeeded\"\n\n"
		if status != http.StatusOK || stream != wantStream {
			t.Fatalf("the log stream of attempt %s: %d %q; want %q", n, status, stream, wantStream)
		}
	}
	if status, page = get("/runs/" + id + "?attempt=3"); status != http.StatusNotFound || !strings.Contains(page, "has no attempt 3; its attempts are 1, 2") {
		t.Fatalf("the page of attempt 3: %d; want 404 naming attempts 1 and 2:\n%s", status, page)
	}
	if status, page = get("/runs/" + id + "/log?attempt=x"); status != http.StatusBadRequest || !strings.Contains(page, "is not an attempt number") {
		t.Fatalf("the log of attempt x: %d; want 400 saying what an attempt number is:\n%s", status, page)
	}
}
