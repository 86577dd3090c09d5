package server

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// secondStepAt sends code with the ticket to the second step at base;
// it returns the status and the page.
func secondStepAt(t *testing.T, c *http.Client, base, csrf, ticket, code string) (int, string) {
	t.Helper()
	resp, body := httpcall.Form(t, c, http.MethodPost, base+"/signin/two-step", url.Values{"csrf": {csrf}, "ticket": {ticket}, "code": {code}})
	return resp.StatusCode, body
}

// A second step is the database's, not the process's: a password typed
// before a restart is followed by its code after it, in the same browser,
// without typing the password again.
func TestASecondStepStartedBeforeARestartFinishesAfterIt(t *testing.T) {
	t.Parallel()
	s := startTwoStepSite(t)
	s.tick(1)
	c := consoleClient(t)
	csrf, ticket := s.passwordStep(t, c)
	if err := s.srv.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	srv, err := Start(t.Context(), Config{DataDir: s.dir, HTTPAddr: "127.0.0.1:0", Cadence: 250 * time.Millisecond, Logger: slog.New(slog.DiscardHandler), NowMs: s.now.Load})
	if err != nil {
		t.Fatal(err)
	}
	stopAtCleanup(t, srv)
	base := "http://" + srv.Addr()
	if st, page := secondStepAt(t, c, base, csrf, ticket, s.code(t, 0)); st != http.StatusSeeOther {
		t.Fatalf("the code after a restart: %d, want signed in\n%s", st, page)
	}
	if resp, _ := httpcall.Form(t, c, http.MethodGet, base+"/", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("the overview after the second step: %d, want the browser signed in", resp.StatusCode)
	}
}

// A second step's ticket signs in once: sent again, even with a new
// right code, it has ended; so has one answered after its five minutes,
// and one whose user's password was changed meanwhile.
func TestASecondStepSignsInOnceWithinItsWindowAndPassword(t *testing.T) {
	t.Parallel()
	s := startTwoStepSite(t)
	s.tick(1)
	c := consoleClient(t)
	csrf, ticket := s.passwordStep(t, c)
	if st, msg := s.secondStep(t, c, csrf, ticket, s.code(t, 0)); st != http.StatusSeeOther {
		t.Fatalf("the right code: %d %q", st, msg)
	}
	s.tick(1)
	ended := func(what string, c *http.Client, csrf, ticket string) {
		t.Helper()
		if st, page := secondStepAt(t, c, s.base, csrf, ticket, s.code(t, 0)); st != http.StatusUnauthorized || !strings.Contains(page, "second step has ended") {
			t.Fatalf("%s: %d, want the second step ended\n%s", what, st, page)
		}
	}
	ended("the ticket used already", c, csrf, ticket)

	late := consoleClient(t)
	csrf, ticket = s.passwordStep(t, late)
	s.tick(int(5 * time.Minute / (account.TwoStepPeriod * time.Second)))
	ended("a ticket after five minutes", late, csrf, ticket)
	if s.signedIn(t, late) {
		t.Fatal("an ended ticket signed the browser in")
	}

	changed := consoleClient(t)
	csrf, ticket = s.passwordStep(t, changed)
	if err := account.SetPassword(t.Context(), s.srv.store, "tester", s.owner, ownerPassword+"-new"); err != nil {
		t.Fatal(err)
	}
	s.tick(1)
	ended("a ticket of a password changed since", changed, csrf, ticket)
}

// Turning two-step off and a password change check their secret through
// one throttle: wrong current passwords spend the tries a code to turn
// two-step off would need, and once they are spent the app's next code
// (which would be accepted) is refused as throttled, two-step left on.
func TestTurningTwoStepOffIsThrottledWithThePasswordChecks(t *testing.T) {
	t.Parallel()
	s := startTwoStepSite(t)
	s.tick(1)
	c := consoleClient(t)
	csrf, ticket := s.passwordStep(t, c)
	if st, msg := s.secondStep(t, c, csrf, ticket, s.code(t, 0)); st != http.StatusSeeOther {
		t.Fatalf("the right code: %d %q", st, msg)
	}
	_, page := httpcall.Form(t, c, http.MethodGet, s.base+"/account", nil)
	csrf = csrfField.FindStringSubmatch(page)[1]
	throttled := false
	for range 20 {
		resp, _ := httpcall.Form(t, c, http.MethodPost, s.base+"/account/password", url.Values{"csrf": {csrf}, "current": {"not the password"}, "password": {"a new long passphrase 42"}, "password2": {"a new long passphrase 42"}})
		if resp.StatusCode == http.StatusTooManyRequests {
			throttled = true
			break
		}
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a wrong current password: %d", resp.StatusCode)
		}
	}
	if !throttled {
		t.Fatal("20 wrong current passwords were never throttled")
	}
	if resp, body := httpcall.Form(t, c, http.MethodPost, s.base+"/account/two-step/off", url.Values{"csrf": {csrf}, "code": {s.code(t, 1)}}); resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("turning off once throttled: %d, want 429 with Retry-After\n%s", resp.StatusCode, body)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, s.base+"/account", nil); !strings.Contains(page, "Two-step sign-in is on.") {
		t.Fatalf("two-step is not on after a throttled turn-off:\n%s", page)
	}
}
