package server

import (
	"log/slog"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A console session is stored in the database: the server started again
// on the same data directory accepts it, with the CSRF token the page
// showed before the restart, and its sign-out ends it there.
func TestAConsoleSessionSurvivesAServerRestart(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	if st, loc, msg := site.signInUser(t, c, site.owner, ownerPassword); st != http.StatusSeeOther {
		t.Fatalf("sign-in: %d to %q (%q)", st, loc, msg)
	}
	_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/", nil)
	csrf := csrfField.FindStringSubmatch(page)
	if csrf == nil {
		t.Fatalf("the overview has no CSRF token:\n%s", page)
	}
	site.restart(t)
	base := site.base
	if resp, body := httpcall.Form(t, c, http.MethodGet, base+"/", nil); resp.StatusCode != http.StatusOK || csrfField.FindStringSubmatch(body) == nil || csrfField.FindStringSubmatch(body)[1] != csrf[1] {
		t.Fatalf("after the restart the overview answers %d to %q, want 200 with the same CSRF token", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := httpcall.Form(t, c, http.MethodPost, base+"/signout", url.Values{"csrf": {csrf[1]}}); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/signin?signedout" {
		t.Fatalf("sign-out after the restart: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := httpcall.Form(t, c, http.MethodGet, base+"/", nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("after the sign-out the overview answers %d, want 303 to sign in", resp.StatusCode)
	}
}

// The sign-in form's CSRF value is checked against nothing the server
// keeps in its process: a sign-in page loaded before a restart, posted to
// the server started again on the same data directory, signs in.
func TestASigninPageLoadedBeforeARestartSignsInAfterIt(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	csrf, _ := site.signinForm(t, c)
	if err := site.srv.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	srv, err := Start(t.Context(), Config{DataDir: site.dir, HTTPAddr: "127.0.0.1:0", Cadence: 250 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	stopAtCleanup(t, srv)
	base := "http://" + srv.Addr()
	resp, body := httpcall.Form(t, c, http.MethodPost, base+"/signin", url.Values{"csrf": {csrf}, "user": {site.owner}, "password": {ownerPassword}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("the sign-in page loaded before the restart, posted after it: %d to %q, want signed in\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	if resp, _ := httpcall.Form(t, c, http.MethodGet, base+"/account", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("the account page after that sign-in: %d, want 200", resp.StatusCode)
	}
}
