package singlecli

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/testkit/metricstest"
)

// hmacSecret signs the webhook bodies of these tests.
const hmacSecret = "s3cret-signing-value"

// received is one request a receiver got.
type received struct {
	path, key string
	body      []byte
	signed    bool
	at        time.Time
}

// receiver is a local webhook endpoint that verifies every signature and
// answers each request with what status says; hold, when set, keeps the
// first request open until the client goes away.
type receiver struct {
	mu     sync.Mutex
	got    []received
	status func(path string, n int) int
	hold   chan struct{}
	srv    *httptest.Server
}

func newReceiver(t *testing.T, status func(path string, n int) int) *receiver {
	r := &receiver{status: status}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		n := 0
		for _, g := range r.got {
			if g.path == req.URL.Path {
				n++
			}
		}
		r.got = append(r.got, received{path: req.URL.Path, key: req.Header.Get(notify.HeaderIdempotencyKey), body: body,
			signed: notify.Verify(hmacSecret, body, req.Header.Get(notify.HeaderSignature)), at: time.Now()})
		hold := r.hold
		r.mu.Unlock()
		if hold != nil && n == 0 {
			close(hold)
			<-req.Context().Done()
			return
		}
		w.WriteHeader(r.status(req.URL.Path, n))
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) requests(path string) []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []received
	for _, g := range r.got {
		if g.path == path {
			out = append(out, g)
		}
	}
	return out
}

// failingDefs is a project whose one trigger never falls due in a test
// (runFailing starts its command), a command that fails; each path of url
// gets a webhook channel and a rule on failed.
func failingDefs(url string, paths ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "project: alerts\nnotifications:\n  channels:\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "    %s: {type: webhook, url: %q, signingSecret: hook_hmac}\n", p, url+"/"+p)
	}
	b.WriteString("  rules:\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "    - {on: failed, channel: %s}\n", p)
	}
	b.WriteString(`tasks:
  - name: broken
    script: exit 3
triggers:
  - name: once
    task: broken
    cron: "0 0 1 1 *"
    timezone: UTC
`)
	return b.String()
}

// runFailing admits one Run of the failing trigger now, as a person would:
// no clock window that a slow start could miss.
func runFailing(t *testing.T, dir string) {
	t.Helper()
	if code, out, errOut := ql(t, "triggers", "run", "once", "--data-dir", dir); code != 0 {
		t.Fatalf("triggers run: %d %q %q", code, out, errOut)
	}
}

// notifyDataDir applies defs and writes the secrets file the channels
// name.
func notifyDataDir(t *testing.T, defs string) (string, *sql.DB) {
	t.Helper()
	dir := installedDir(t)
	writeFile(t, dir, "qinglong-secrets.json", `{"hook_hmac": "`+hmacSecret+`"}`)
	applyDefs(t, dir, defs)
	return dir, readOnlyDB(t, dir)
}

// outboxState waits up to limit until the outbox holds want rows in
// state.
func outboxState(t *testing.T, db *sql.DB, state string, want int, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	n := -1
	for time.Now().Before(deadline) {
		if err := db.QueryRow(`SELECT count(*) FROM notification_outbox WHERE state = ?`, state).Scan(&n); err == nil && n == want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%d notifications %s after %s, want %d", n, state, limit, want)
}

// A receiver that is down for the first deliveries gets the notification
// again with backoff until it accepts it, under one idempotency key and a
// valid signature each time, and then never again; a channel that never
// accepts is dead after --notify-max-attempts, which `ql notifications
// list --state dead` shows, and `retry` makes pending again.
func TestANotificationIsRetriedWithBackoffDeliveredOncePerKeyAndDeadLettered(t *testing.T) {
	t.Parallel()
	r := newReceiver(t, func(path string, n int) int {
		if path == "/flaky" && n >= 2 {
			return http.StatusOK
		}
		return http.StatusServiceUnavailable
	})
	dir, db := notifyDataDir(t, failingDefs(r.srv.URL, "flaky", "down"))
	ctx, cancel := context.WithCancel(context.Background())
	var errOut syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- cli.Main(ctx, Options("ql"), []string{"serve", "--data-dir", dir, "--cadence", "250ms", "--stop-timeout", testStopTimeout,
			"--notify-backoff", "200ms", "--notify-max-attempts", "3"}, &syncBuffer{}, &errOut)
	}()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if code := <-exit; code != 0 {
			t.Errorf("serve exited %d: %s", code, errOut.String())
		}
	}
	defer stop()
	runFailing(t, dir)
	outboxState(t, db, "delivered", 1, 30*time.Second)
	outboxState(t, db, "dead", 1, 30*time.Second)

	flaky := r.requests("/flaky")
	if len(flaky) != 3 {
		t.Fatalf("the flaky receiver got %d requests, want 2 refused and 1 accepted", len(flaky))
	}
	for i, g := range flaky {
		if g.key != flaky[0].key || string(g.body) != string(flaky[0].body) || !g.signed {
			t.Fatalf("delivery %d: key %q, signed %t, body %s; want every delivery signed, with key %q and the same body", i, g.key, g.signed, g.body, flaky[0].key)
		}
	}
	// Backoff: 200ms then 400ms, each less at most a fifth.
	for i, min := range []time.Duration{160 * time.Millisecond, 320 * time.Millisecond} {
		if gap := flaky[i+1].at.Sub(flaky[i].at); gap < min {
			t.Fatalf("retry %d came %s after the failure, want at least %s", i+1, gap, min)
		}
	}
	var p notify.Payload
	if err := json.Unmarshal(flaky[0].body, &p); err != nil || p.ID != flaky[0].key || p.Event != notify.OnFailed || p.Project != "alerts" ||
		p.Trigger != "once" || p.RunState != "failed" {
		t.Fatalf("webhook body %s (%v); want the failed Run of alerts/once under its key", flaky[0].body, err)
	}
	if down := r.requests("/down"); len(down) != 3 {
		t.Fatalf("the down receiver got %d requests, want --notify-max-attempts 3", len(down))
	}

	code, out, stderr := ql(t, "notifications", "list", "--state", "dead", "-o", "json", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("notifications list: %d %s", code, stderr)
	}
	var page struct {
		Notifications []struct {
			ID, State, Channel, LastError, LastErrorReason string
			Attempts                                       int
		}
	}
	err := json.Unmarshal([]byte(out), &page)
	dead := page.Notifications
	if err != nil || len(dead) != 1 || dead[0].Channel != "down" || dead[0].Attempts != 3 ||
		!strings.Contains(dead[0].LastError, "503") || dead[0].LastErrorReason != string(notify.ReasonReceiverStatus) || strings.Contains(out, r.srv.URL) {
		t.Fatalf("dead notifications %s (%v); want the down channel's, 3 attempts, the receiver's answer and its reason, and no URL", out, err)
	}
	// The server stops first: still running, it could deliver the retried
	// notification to the down receiver three times and dead-letter it again
	// before the second retry below.
	stop()
	if code, out, stderr := ql(t, "notifications", "retry", dead[0].ID, "--data-dir", dir); code != 0 || !strings.Contains(out, "pending again") {
		t.Fatalf("notifications retry: %d %q %q", code, out, stderr)
	}
	outboxState(t, db, "pending", 1, 5*time.Second)
	// The retry by hand keeps the attempts it failed, and the listing says
	// when it was retried.
	if code, out, stderr := ql(t, "notifications", "list", "--state", "pending", "--data-dir", dir); code != 0 || !strings.Contains(out, "3 (3 before a retry by hand by ") {
		t.Fatalf("notifications list after the retry: %d %q %q; want ATTEMPTS 3, all before the retry by hand, and when it was", code, out, stderr)
	}
	if code, _, stderr := ql(t, "notifications", "retry", dead[0].ID, "--data-dir", dir); code != 4 || !strings.Contains(stderr, "only a dead notification") {
		t.Fatalf("a second retry: %d %q; want exit 4, refused: the notification is pending", code, stderr)
	}
}

// A notification committed with its Run survives a SIGKILL of the server
// in the middle of its delivery: the restarted server delivers it, under
// the same idempotency key.
func TestTheOutboxSurvivesASIGKILLBetweenCommitAndDelivery(t *testing.T) {
	t.Parallel()
	r := newReceiver(t, func(string, int) int { return http.StatusOK })
	hold := make(chan struct{})
	r.hold = hold
	dir, db := notifyDataDir(t, failingDefs(r.srv.URL, "hook"))
	serve := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "serve", "--data-dir", dir, "--cadence", "250ms", "--stop-timeout", "1s", "--notify-backoff", "200ms")
		cmd.Env = append(os.Environ(), envRunCLI+"=1")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}
		})
		return cmd
	}
	first := serve()
	runFailing(t, dir)
	select {
	case <-hold:
	case <-time.After(30 * time.Second):
		t.Fatal("no delivery was attempted within 30s")
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	outboxState(t, db, "pending", 1, time.Second)

	serve()
	outboxState(t, db, "delivered", 1, 30*time.Second)
	got := r.requests("/hook")
	if len(got) != 2 || got[0].key == "" || got[1].key != got[0].key || string(got[1].body) != string(got[0].body) || !got[1].signed {
		t.Fatalf("the receiver got %d deliveries (%+v); want the interrupted one and one more with the same key and body", len(got), got)
	}
}

// metricsAddrLogged is the metrics listener's address a server logged at
// start (it was given port 0), waited for up to limit.
func metricsAddrLogged(t *testing.T, errOut *syncBuffer, limit time.Duration) string {
	t.Helper()
	logged := regexp.MustCompile(`msg="metrics listening[^"]*" .*?addr=(\S+)`)
	deadline := time.Now().Add(limit)
	// The listener is logged as it starts answering 503, before the
	// database is open and checked: the address is returned once it
	// serves the metrics.
	for time.Now().Before(deadline) {
		if m := logged.FindStringSubmatch(errOut.String()); m != nil {
			if resp, err := http.Get("http://" + m[1] + "/metrics"); err == nil {
				resp.Body.Close() // only the status is read
				if resp.StatusCode == http.StatusOK {
					return m[1]
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no metrics served on a logged address within %s: %s", limit, errOut.String())
	return ""
}

// Every delivery's outcome reaches /metrics as the outbox records it: an
// accepted one as delivered, a refused one that will be retried as
// failed and the refusal of its last allowed attempt as dead, so an
// operator can alert on notifications that no longer reach anyone.
func TestNotificationDeliveriesAreCountedByOutcomeInTheMetrics(t *testing.T) {
	t.Parallel()
	r := newReceiver(t, func(path string, _ int) int {
		if path == "/ok" {
			return http.StatusOK
		}
		return http.StatusServiceUnavailable
	})
	dir, db := notifyDataDir(t, failingDefs(r.srv.URL, "ok", "down"))
	ctx, cancel := context.WithCancel(context.Background())
	var errOut syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- cli.Main(ctx, Options("ql"), []string{"serve", "--data-dir", dir, "--cadence", "250ms", "--stop-timeout", testStopTimeout,
			"--metrics-addr", "127.0.0.1:0", "--notify-backoff", "200ms", "--notify-max-attempts", "2"}, &syncBuffer{}, &errOut)
	}()
	defer func() {
		cancel()
		if code := <-exit; code != 0 {
			t.Errorf("serve exited %d: %s", code, errOut.String())
		}
	}()
	addr := metricsAddrLogged(t, &errOut, 30*time.Second)
	before := metricstest.Scrape(t, "http://"+addr+"/metrics")
	for _, o := range notify.Outcomes {
		if got := before.Value(t, "qinglong_notification_deliveries_total", "outcome", o); got != 0 {
			t.Errorf("before any delivery, outcome %s = %g, want 0", o, got)
		}
	}
	runFailing(t, dir)
	outboxState(t, db, "delivered", 1, 30*time.Second)
	outboxState(t, db, "dead", 1, 30*time.Second)
	after := metricstest.Scrape(t, "http://"+addr+"/metrics")
	for o, want := range map[string]float64{notify.OutcomeDelivered: 1, notify.OutcomeFailed: 1, notify.OutcomeDead: 1} {
		if got := after.Value(t, "qinglong_notification_deliveries_total", "outcome", o); got != want {
			t.Errorf("qinglong_notification_deliveries_total{outcome=%q} = %g, want %g", o, got, want)
		}
	}
}
