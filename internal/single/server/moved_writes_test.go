package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// moveAway renames the site's database file away, waits until /readyz
// says database_moved, and returns what moves it back and waits until the
// server is ready again.
func (s *consoleSite) moveAway(t *testing.T) (back func()) {
	t.Helper()
	db := LayoutOf(s.dir).DB
	away := db + ".away"
	if err := os.Rename(db, away); err != nil {
		t.Fatal(err)
	}
	s.waitReady(t, http.StatusServiceUnavailable, metrics.StateDatabaseMoved)
	return func() {
		t.Helper()
		if err := os.Rename(away, db); err != nil {
			t.Fatal(err)
		}
		s.waitReady(t, http.StatusOK, "")
	}
}

// waitReady waits until /readyz answers status with reason.
func (s *consoleSite) waitReady(t *testing.T, status int, reason string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("/readyz to answer %d %q", status, reason), 10*time.Second, func() bool {
		code, body, _ := httpcall.Bearer(t, http.MethodGet, s.base+"/readyz", "", nil)
		var probe struct{ Reason string }
		return code == status && json.Unmarshal(body, &probe) == nil && probe.Reason == reason
	})
}

// apiError is an API error answer's body.
type apiError struct {
	Error struct {
		Code    qlerror.Code
		Message string
		Reason  qlerror.Reason
	}
}

// refusedAsMoved checks that an API answer is the refusal of a write while
// the database file is moved away: 503, its reason, and what to do.
func refusedAsMoved(t *testing.T, what string, status int, body []byte, db string) {
	t.Helper()
	var e apiError
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("%s: answered %d %s, not an API error: %v", what, status, body, err)
	}
	if status != http.StatusServiceUnavailable || e.Error.Code != qlerror.Unavailable || e.Error.Reason != hold.RefusalDatabaseMoved {
		t.Errorf("%s while the database file is moved away: %d %s; want 503 %s with the reason %s", what, status, body, qlerror.Unavailable, hold.RefusalDatabaseMoved)
	}
	if !strings.Contains(e.Error.Message, "put the file back at "+db) {
		t.Errorf("%s: the refusal does not say what to do: %q", what, e.Error.Message)
	}
}

// movedFile is a definitions file of a project of its own, for an apply
// over the API.
const movedFile = `project: moved
tasks:
  - name: noop
    script: "true"
triggers:
  - name: yearly
    task: noop
    cron: "0 0 1 1 *"
    timezone: UTC
`

// TestAServerWhoseDatabaseIsMovedAwayRefusesAPIWritesAndAnswersReads: while
// the database file is moved away, a run now, an apply and a pause over
// the API are refused with 503 and the reason database_moved, saying to
// put the file back, and write nothing; reads are answered. Moved back,
// the same requests succeed, as first asked.
func TestAServerWhoseDatabaseIsMovedAwayRefusesAPIWritesAndAnswersReads(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	db := LayoutOf(site.dir).DB
	trig := site.base + "/api/v1/triggers/" + site.triggerID
	runNow := []byte(`{"requestId":"` + ids.New() + `"}`)
	operate, admin := site.tokens[apitoken.Operate], site.tokens[apitoken.Admin]
	back := site.moveAway(t)

	st, body, _ := httpcall.Bearer(t, http.MethodPost, trig+"/run", operate, runNow)
	refusedAsMoved(t, "run now", st, body, db)
	st, body, _ = httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/apply", admin, []byte(movedFile))
	refusedAsMoved(t, "apply", st, body, db)
	st, body, _ = httpcall.Bearer(t, http.MethodPost, trig+"/pause", operate, nil)
	refusedAsMoved(t, "pause", st, body, db)
	if st, body, _ := httpcall.Bearer(t, http.MethodGet, trig, site.tokens[apitoken.Read], nil); st != http.StatusOK {
		t.Errorf("a trigger read while the database file is moved away: %d %s; want 200", st, body)
	}

	back()
	heldWritesTakeEffect(t, site.base, trig, runNow, operate, admin, "once moved back")
}

// heldWritesTakeEffect asks again, once a hold of the server's writes
// ended (when), the writes refused during it — the run now with its same
// request id, an apply of movedFile, a pause of the trigger at trig — and
// fails unless each takes effect now: had a refused one written anything,
// the run now would return its Run rather than create one, and the apply
// and the pause would change nothing.
func heldWritesTakeEffect(t *testing.T, base, trig string, runNow []byte, operate, admin, when string) {
	t.Helper()
	st, body, _ := httpcall.Bearer(t, http.MethodPost, trig+"/run", operate, runNow)
	var ran struct {
		RunID   string
		Created bool
	}
	if err := json.Unmarshal(body, &ran); st != http.StatusOK || err != nil || !ran.Created {
		t.Fatalf("run now %s: %d %s; want a Run created", when, st, body)
	}
	httpcall.Bearer(t, http.MethodPost, base+"/api/v1/runs/"+ran.RunID+"/cancel", operate, nil)
	st, body, _ = httpcall.Bearer(t, http.MethodPost, base+"/api/v1/apply", admin, []byte(movedFile))
	var applied struct{ Created, Unchanged int }
	if err := json.Unmarshal(body, &applied); st != http.StatusOK || err != nil || applied.Created == 0 || applied.Unchanged != 0 {
		t.Errorf("apply %s: %d %s; want every object created by it", when, st, body)
	}
	st, body, _ = httpcall.Bearer(t, http.MethodPost, trig+"/pause", operate, nil)
	var paused struct{ Changed, Paused bool }
	if err := json.Unmarshal(body, &paused); st != http.StatusOK || err != nil || !paused.Changed || !paused.Paused {
		t.Errorf("pause %s: %d %s; want the trigger paused by it", when, st, body)
	}
}

// TestTheConsoleRefusesARunNowWhileTheDatabaseIsMovedAwayInThePagesLanguage:
// while the database file is moved away, the console's run now form is
// refused (503) with a page saying the file was moved and what to do, in
// English and in Chinese, as is a sign-in, and its pages are still
// served; moved back, the form runs the trigger.
func TestTheConsoleRefusesARunNowWhileTheDatabaseIsMovedAwayInThePagesLanguage(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	db := LayoutOf(site.dir).DB
	back := site.moveAway(t)

	for _, l := range []string{"en", "zh"} {
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/run?lang="+l, url.Values{"csrf": {csrf}})
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("run now (%s) while the database file is moved away: %d; want 503", l, resp.StatusCode)
		}
		want := map[string]string{"en": "put the file back at " + db, "zh": "请把文件放回 " + db}[l]
		if !strings.Contains(page, want) {
			t.Errorf("the %s refusal does not say %q:\n%s", l, want, page)
		}
		if l == "zh" && strings.Contains(page, "put the file back") {
			t.Errorf("the Chinese refusal still says the English sentence:\n%s", page)
		}
	}
	if resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("the trigger page while the database file is moved away: %d; want 200:\n%s", resp.StatusCode, page)
	}
	// A sign-in records itself and the token's use: refused too.
	fresh := consoleClient(t)
	signin, _ := site.signinForm(t, fresh)
	if resp, page := httpcall.Form(t, fresh, http.MethodPost, site.base+"/signin", url.Values{"csrf": {signin}, "token": {site.tokens[apitoken.Read]}}); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(page, "put the file back at "+db) {
		t.Errorf("a sign-in while the database file is moved away: %d; want 503 saying what to do:\n%s", resp.StatusCode, page)
	}

	back()
	site.cancel(t, c, csrf, site.runNow(t, c, csrf))
}

// notifyFile is a definitions file whose task fails once the file named
// by %[2]s exists, with a rule sending its failure to the webhook %[1]s.
const notifyFile = `project: told
notifications:
  channels:
    ops:
      type: webhook
      url: %[1]s
  rules:
    - {on: failed, channel: ops}
tasks:
  - name: fails
    script: 'while [ ! -e %[2]s ]; do sleep 0.05; done; exit 1'
    timeout: 1m
triggers:
  - name: yearly
    task: fails
    cron: "0 0 1 1 *"
    timezone: UTC
`

// TestANotificationDueWhileTheDatabaseIsMovedAwayIsSentOnlyOnceItIsBack: a
// Run that fails while the database file is moved away (its command was
// already running) makes its failure notification due, which is not sent
// while the file is away — a start on the path would find it unsent and
// send it again — and is sent once the file is back.
func TestANotificationDueWhileTheDatabaseIsMovedAwayIsSentOnlyOnceItIsBack(t *testing.T) {
	t.Parallel()
	var sent atomic.Int32
	got := make(chan struct{}, 16)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		sent.Add(1)
		got <- struct{}{}
	}))
	t.Cleanup(hook.Close)
	site := startConsoleSite(t)
	release := filepath.Join(t.TempDir(), "fail-now")
	operate, read := site.tokens[apitoken.Operate], site.tokens[apitoken.Read]
	if st, body, _ := httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/apply", site.tokens[apitoken.Admin],
		fmt.Appendf(nil, notifyFile, hook.URL, release)); st != http.StatusOK {
		t.Fatalf("apply: %d %s", st, body)
	}
	st, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/triggers", read, nil)
	var list view.TriggerList
	if err := json.Unmarshal(body, &list); st != http.StatusOK || err != nil {
		t.Fatalf("triggers: %d %s", st, body)
	}
	triggerID := ""
	for _, tg := range list.Triggers {
		if tg.ProjectName == "told" {
			triggerID = tg.TriggerID
		}
	}
	if triggerID == "" {
		t.Fatalf("triggers: %s; want the told project's", body)
	}
	st, body, _ = httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/triggers/"+triggerID+"/run", operate, []byte(`{"requestId":"`+ids.New()+`"}`))
	var ran struct{ RunID string }
	if err := json.Unmarshal(body, &ran); st != http.StatusOK || err != nil || ran.RunID == "" {
		t.Fatalf("run now: %d %s", st, body)
	}
	state := func() string {
		t.Helper()
		st, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/runs/"+ran.RunID, read, nil)
		var d struct{ Run struct{ State string } }
		if err := json.Unmarshal(body, &d); st != http.StatusOK || err != nil {
			t.Fatalf("run: %d %s", st, body)
		}
		return d.Run.State
	}
	waitFor(t, "the command to start", 10*time.Second, func() bool { return state() == "running" })
	back := site.moveAway(t)

	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the Run to fail", 10*time.Second, func() bool { return state() == "failed" })
	// Nothing happens to await: the guarantee is that the rounds within
	// this wait (the cadence is 250ms) send nothing.
	for range 8 {
		site.srv.notify.Wake()
		time.Sleep(250 * time.Millisecond)
	}
	if n := sent.Load(); n != 0 {
		t.Fatalf("%d notifications sent while the database file is moved away; want none until it is back", n)
	}

	back()
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("no notification sent within 10s of the database file being back")
	}
}

// TestEveryConsolePageSaysItsServerTakesNoWritesWhileTheDatabaseIsMovedAway:
// while the database file is moved away, every page of the console says,
// above what it shows and in the page's language, that the server takes no
// writes and what to do — a user learns it before submitting a form, not
// from a refusal — and once the file is back no page says it.
func TestEveryConsolePageSaysItsServerTakesNoWritesWhileTheDatabaseIsMovedAway(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	c := consoleClient(t)
	site.signIn(t, c, site.tokens[apitoken.Admin])
	db := LayoutOf(site.dir).DB
	pages := []string{"/", "/triggers", "/triggers/" + site.triggerID, "/runs", "/notifications"}
	banner := `id="held"`
	back := site.moveAway(t)
	for _, l := range []string{"en", "zh"} {
		want := map[string]string{"en": "put the file back at " + db, "zh": "请把文件放回 " + db}[l]
		for _, path := range pages {
			resp, page := httpcall.Form(t, c, http.MethodGet, site.base+path+"?lang="+l, nil)
			if resp.StatusCode != http.StatusOK || !strings.Contains(page, banner) || !strings.Contains(page, want) {
				t.Errorf("%s (%s) while the database file is moved away: %d, want 200 with the banner saying %q:\n%s", path, l, resp.StatusCode, want, page)
			}
		}
	}
	back()
	for _, path := range pages {
		if resp, page := httpcall.Form(t, c, http.MethodGet, site.base+path, nil); resp.StatusCode != http.StatusOK || strings.Contains(page, banner) {
			t.Errorf("%s once the database file is back: %d, want 200 without the banner:\n%s", path, resp.StatusCode, page)
		}
	}
}
