package singlecli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// Every line a standalone server logs in JSON has a non-empty code, so an
// operator can match each on it: the listeners' addresses, the start, a Run
// that ends, a notification that is not delivered, a console sign-in that
// creates and revokes a token, and the stop.
func TestEveryLineAStandaloneServerLogsHasACode(t *testing.T) {
	t.Parallel()
	r := newReceiver(t, func(string, int) int { return http.StatusServiceUnavailable })
	dir, db := notifyDataDir(t, failingDefs(r.srv.URL, "down"))
	admin := newToken(t, dir, "admin", "admin")
	ctx, cancel := context.WithCancel(context.Background())
	var errOut syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- cli.Main(ctx, Options("ql"), []string{"serve", "--data-dir", dir, "--log-format", "json", "--log-level", "debug",
			"--http-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--cadence", "250ms", "--stop-timeout", testStopTimeout,
			"--notify-max-attempts", "1"}, &syncBuffer{}, &errOut)
	}()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			if code := <-exit; code != 0 {
				t.Errorf("serve exited %d: %s", code, errOut.String())
			}
		}
	}
	defer stop()
	// The address is found by the line's words, not its code: the test is
	// to see the codes, and must reach its assertions without them.
	base := ""
	waitLogged(t, &errOut, func(line map[string]any) bool {
		msg, _ := line["msg"].(string)
		addr, _ := line["addr"].(string)
		if strings.HasPrefix(msg, "http listening") {
			base = "http://" + addr
		}
		return base != ""
	})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if st, _, _ := httpcall.Bearer(t, http.MethodGet, base+"/readyz", "", nil); st == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve at %s was not ready within 10s: %s", base, errOut.String())
		}
	}
	runFailing(t, dir)
	outboxState(t, db, "dead", 1, 30*time.Second)
	consoleTokenRoundTrip(t, base, admin)
	stop()

	seen := map[string]bool{}
	for _, line := range logLines(t, &errOut) {
		code, _ := line["code"].(string)
		if code == "" {
			t.Errorf("a line without a code: %v", line)
		}
		seen[code] = true
	}
	var missing []string
	for _, want := range []string{"serve.http_listening", "serve.metrics_listening", "serve.ready", "scheduler.round", "run.finished",
		"notify.not_delivered", "console.token_created", "console.token_revoked", "serve.stopping", "serve.stopped"} {
		if !seen[want] {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		t.Errorf("no line with code %s: the test did not drive what it asserts:\n%s", strings.Join(missing, ", "), errOut.String())
	}
}

// logLines decodes every line of a JSON log.
func logLines(t *testing.T, log *syncBuffer) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, raw := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var line map[string]any
		if err := json.Unmarshal([]byte(raw), &line); err != nil {
			t.Fatalf("log line %q is not JSON: %v", raw, err)
		}
		lines = append(lines, line)
	}
	return lines
}

// waitLogged waits up to 10s until done holds for a line of log, showing it
// each line once.
func waitLogged(t *testing.T, log *syncBuffer, done func(map[string]any) bool) {
	t.Helper()
	shown := 0
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.TrimSpace(log.String()) == "" {
			continue
		}
		lines := logLines(t, log)
		for _, line := range lines[shown:] {
			if done(line) {
				return
			}
		}
		shown = len(lines)
	}
	t.Fatalf("not logged within 10s:\n%s", log.String())
}

var consoleCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// consoleTokenRoundTrip signs in to the console at base with the admin
// token, creates a token there and revokes it.
func consoleTokenRoundTrip(t *testing.T, base, admin string) {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	csrf := func(page string) string {
		m := consoleCSRF.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no CSRF field on the page:\n%s", page)
		}
		return m[1]
	}
	post := func(path string, form url.Values) int {
		resp, _ := httpcall.Form(t, c, http.MethodPost, base+path, form)
		return resp.StatusCode
	}
	_, page := httpcall.Form(t, c, http.MethodGet, base+"/signin", nil)
	if st := post("/signin", url.Values{"csrf": {csrf(page)}, "token": {admin}}); st != http.StatusSeeOther {
		t.Fatalf("sign-in answered %d, want 303", st)
	}
	_, page = httpcall.Form(t, c, http.MethodGet, base+"/tokens", nil)
	token := csrf(page)
	if st := post("/tokens", url.Values{"csrf": {token}, "name": {"short-lived"}, "scope": {"read"}}); st != http.StatusSeeOther {
		t.Fatalf("creating a token answered %d, want 303 to the page showing it", st)
	}
	if st := post("/tokens/short-lived/revoke", url.Values{"csrf": {token}}); st != http.StatusSeeOther {
		t.Fatalf("revoking the token answered %d, want 303", st)
	}
}
