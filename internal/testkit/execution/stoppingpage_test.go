package execution

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// The console's Workers page says of a worker stopping on SIGTERM, in the
// reader's language, that its process stops: it finishes its commands and
// takes no new Run — what `ql workers list` shows as draining (stopping),
// where an admin's drain shows draining alone.
func TestTheWorkersPageSaysAWorkerStoppingOnSIGTERMFinishesItsCommandsInBothLanguages(t *testing.T) {
	t.Parallel()
	s := startStoppingWorker(t, "sigdrainpage")
	if !holdsWithin(10*time.Second, func() bool { return s.c.listWorker(t, "worker").State == "draining" }) {
		t.Fatalf("the worker is not listed draining 10s after its SIGTERM")
	}
	get := s.consoleReader(t)
	for lang, want := range map[string]string{
		"en": "its process is stopping: it finishes its commands, takes no new run",
		"zh": "进程正在停止：完成手上的命令，不再接收新的运行",
	} {
		code, page := get("/workers?lang=" + lang)
		row := regexp.MustCompile(`(?s)<tr><td[^>]*>(<a [^>]*>)?worker(</a>)?</td>.*?</tr>`).FindString(page)
		if code != http.StatusOK || !strings.Contains(row, want) {
			t.Fatalf("the %s workers page (%d) shows the stopping worker as %q, want the note %q:\n%s", lang, code, row, want, page)
		}
	}
	s.finish(t)
	if _, page := get("/workers?lang=en"); strings.Contains(page, "its process is stopping") {
		t.Fatalf("the workers page still says the worker stops after it exited:\n%s", page)
	}
}

// consoleReader signs in to the replica's console with a read token the
// admin role creates and returns a reader of its pages: status and body.
func (s stoppingWorker) consoleReader(t *testing.T) func(path string) (int, string) {
	t.Helper()
	code, out, errOut := s.c.qlStreams(t, []string{"QL_DATABASE_URL=" + s.c.env.URL(pgstore.RoleAdmin)}, "tokens", "create", "reader", "--scope", "read")
	token := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	if code != 0 || token == "" {
		t.Fatalf("ql tokens create: exit %d: %s %s", code, out, errOut)
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	base := "http://" + s.r.httpAddr
	get := func(path string) (int, string) {
		t.Helper()
		resp, page := httpcall.Form(t, client, http.MethodGet, base+path, nil)
		return resp.StatusCode, page
	}
	_, signin := get("/signin")
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(signin)
	if csrf == nil {
		t.Fatalf("the sign-in page has no CSRF field:\n%s", signin)
	}
	if resp, _ := httpcall.Form(t, client, http.MethodPost, base+"/signin", url.Values{"token": {token}, "csrf": {csrf[1]}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("console sign-in with a read token answered %d, want 303", resp.StatusCode)
	}
	return get
}
