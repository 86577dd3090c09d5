package console

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// batchSite is a console over a real store holding the project shop with
// the enabled triggers a and b and the disabled trigger off, and a session
// of each scope (its id is the scope's name, its CSRF value "k"), each
// session's browser keeping the flash cookies the console sets (a form's
// result rides to its page in one).
type batchSite struct {
	c        *Console
	st       *sqlitestore.Store
	triggers map[string]string

	mu      sync.Mutex
	cookies map[apitoken.Scope]map[string]string
}

// newBatchSite serves the console with every action a standalone server
// has, its Config changed by configure when given.
func newBatchSite(t *testing.T, configure func(*Config)) *batchSite {
	t.Helper()
	ctx := t.Context()
	st := sqlitetest.Open(t)
	svc := catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
	p := project.Project{ID: ids.New(), Name: "shop", Status: project.Active}
	if _, err := st.ProjectSave(ctx, p); err != nil {
		t.Fatal(err)
	}
	tk, _, err := svc.PublishTask(ctx, p.ID, ids.New(), 0, ids.New(), task.Spec{Name: "report", Enabled: true,
		Command: task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: "true", TimeoutMs: time.Minute.Milliseconds()}})
	if err != nil {
		t.Fatal(err)
	}
	b := &batchSite{st: st, triggers: map[string]string{}, cookies: map[apitoken.Scope]map[string]string{}}
	for _, name := range []string{"a", "b", "off"} {
		tg, _, err := svc.PublishTrigger(ctx, p.ID, ids.New(), tk, 0, ids.New(), trigger.Spec{Name: name, Enabled: name != "off",
			Cron: trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}})
		if err != nil {
			t.Fatal(err)
		}
		b.triggers[name] = tg.TriggerID
	}
	cfg := Config{Runs: st, LastRuns: st, Triggers: st, Detail: st, Tokens: st, Pauser: st, Manual: st, Export: st, Enabler: svc}
	if configure != nil {
		configure(&cfg)
	}
	b.c = New(cfg)
	for _, s := range apitoken.Scopes {
		secret, _, err := apitoken.Create(ctx, st, "tester", ids.New(), "web-"+string(s), s, 0)
		if err != nil {
			t.Fatal(err)
		}
		b.c.sessions.add(&session{id: string(s), csrf: "k", digest: apitoken.Digest(secret), name: "web-" + string(s), scope: s, expiresMs: 1 << 62, seenMs: time.Now().UnixMilli()})
	}
	return b
}

// cannotPublish is a console that cannot enable or disable, as a cluster
// replica's runtime role cannot.
func cannotPublish(cfg *Config) { cfg.Enabler = nil }

// do sends a request of the session of scope to path, a form when form is
// not nil (with the session's CSRF value), and returns the answer.
func (b *batchSite) do(scope apitoken.Scope, path string, form url.Values) *httptest.ResponseRecorder {
	w := b.send(scope, path, form)
	// A form that succeeded sends the browser to the page showing what it
	// did; the browser follows at once, and so does this.
	if to := w.Header().Get("Location"); w.Code == http.StatusSeeOther && strings.Contains(to, flashParam+"=") {
		return b.send(scope, to, nil)
	}
	return w
}

// send is do without following a form's redirect.
func (b *batchSite) send(scope apitoken.Scope, path string, form url.Values) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if form != nil {
		form.Set("csrf", "k")
		r = httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	r.AddCookie(&http.Cookie{Name: sessionCookie, Value: string(scope)})
	b.mu.Lock()
	for k, v := range b.cookies[scope] {
		r.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	b.mu.Unlock()
	w := httptest.NewRecorder()
	b.c.ServeHTTP(w, r)
	b.keep(scope, w)
	return w
}

// keep keeps the flash cookies w set in the browser of the session of
// scope; the others (a language chosen, a theme) are left out, so that
// each request of a test asks for what its address says alone.
func (b *batchSite) keep(scope apitoken.Scope, w *httptest.ResponseRecorder) {
	b.mu.Lock()
	defer b.mu.Unlock()
	jar := b.cookies[scope]
	if jar == nil {
		jar = map[string]string{}
		b.cookies[scope] = jar
	}
	for _, ck := range w.Result().Cookies() {
		switch {
		case !strings.HasPrefix(ck.Name, flashCookie):
		case ck.MaxAge < 0:
			delete(jar, ck.Name)
		default:
			jar[ck.Name] = ck.Value
		}
	}
}

// paused reports whether trigger name is paused, and its newest audit
// record.
func (b *batchSite) paused(t *testing.T, name string) (bool, schedule.AuditRecord) {
	t.Helper()
	d, err := b.st.TriggerDetail(t.Context(), b.triggers[name], 1)
	if err != nil {
		t.Fatal(err)
	}
	var newest schedule.AuditRecord
	if len(d.Audit) > 0 {
		newest = d.Audit[0]
	}
	return d.Paused, newest
}

var batchRow = regexp.MustCompile(`(?s)<tr class="batch-(done|refused|untried)"><td[^>]*>(.*?)</td>\s*<td[^>]*>(.*?)</td></tr>`)

var tags = regexp.MustCompile(`<[^>]+>`)

// batchLines are a batch answer's lines, each "done|refused|untried: trigger:
// what was said", as text.
func batchLines(page string) []string {
	var out []string
	for _, m := range batchRow.FindAllStringSubmatch(page, -1) {
		text := func(s string) string {
			return strings.Join(strings.Fields(html.UnescapeString(tags.ReplaceAllString(s, ""))), " ")
		}
		out = append(out, m[1]+": "+text(m[2])+": "+text(m[3]))
	}
	return out
}

// batchButton is the list's batch button sending action above the list,
// and its twin below it (sending the same form, so a phone need not
// scroll back up).
var batchButton = regexp.MustCompile(`^id="batch-(run|pause|resume|enable|disable)"$`)

// withBottom is the markup list with, for each batch button in it, the
// button below the list that sends the same form and action.
func withBottom(list []string) []string {
	out := list
	for _, s := range list {
		if m := batchButton.FindStringSubmatch(s); m != nil {
			out = append(out, `<button type="submit" form="triggers-batch" name="do" value="`+m[1]+`" id="batch-`+m[1]+`-bottom">`)
		}
	}
	return out
}

var pageID = regexp.MustCompile(` id="([^"]+)"`)

// The triggers list offers a box per trigger and each batch button only
// to the scopes whose single trigger's form it is: nothing to read, run
// now, pause and resume to operate, enable and disable to admin, and
// those two to no one where the server cannot publish. Each button is
// offered above the list and again below it, sending the same form
// without a script; no id is on the page twice.
func TestTheTriggersListOffersEachBatchActionOnlyToTheScopesThatMayDoIt(t *testing.T) {
	t.Parallel()
	withEnable, without := newBatchSite(t, nil), newBatchSite(t, cannotPublish)
	for _, c := range []struct {
		site  *batchSite
		scope apitoken.Scope
		want  []string
		not   []string
	}{
		{withEnable, apitoken.Read, nil, []string{`id="triggers-batch"`, `class="batch-pick"`, `id="batch-run"`, `id="triggers-batch-bottom"`}},
		{withEnable, apitoken.Operate, []string{`id="triggers-batch"`, `class="batch-pick"`, `id="batch-run"`, `id="batch-pause"`, `id="batch-resume"`, `id="batch-note"`}, []string{`id="batch-enable"`, `id="batch-disable"`}},
		{withEnable, apitoken.Admin, []string{`id="batch-run"`, `id="batch-pause"`, `id="batch-resume"`, `id="batch-enable"`, `id="batch-disable"`}, nil},
		{without, apitoken.Admin, []string{`id="batch-run"`, `id="batch-pause"`, `id="batch-resume"`}, []string{`id="batch-enable"`, `id="batch-disable"`}},
	} {
		w := c.site.do(c.scope, "/triggers", nil)
		page := w.Body.String()
		seen := map[string]bool{}
		for _, m := range pageID.FindAllStringSubmatch(page, -1) {
			if seen[m[1]] {
				t.Errorf("%s: the id %q is on the list twice", c.scope, m[1])
			}
			seen[m[1]] = true
		}
		for _, s := range withBottom(c.want) {
			if !strings.Contains(page, s) {
				t.Errorf("%s (enable %v): the list lacks %s", c.scope, c.site.c.cfg.Enabler != nil, s)
			}
		}
		for _, s := range withBottom(c.not) {
			if strings.Contains(page, s) {
				t.Errorf("%s (enable %v): the list offers %s", c.scope, c.site.c.cfg.Enabler != nil, s)
			}
		}
		if c.scope != apitoken.Read && strings.Count(page, `class="batch-pick"`) != 3 {
			t.Errorf("%s: %d boxes, want one per trigger (3)", c.scope, strings.Count(page, `class="batch-pick"`))
		}
	}
}

// Each selected trigger gets its own outcome, in the order selected and
// once however often selected: one that does not exist or is not an id
// is refused in the refusal's own words, in the page's language, and the
// others are done all the same, each audited with the session's actor and
// the one note; the answer links back to the list as it was filtered and
// paged.
func TestEachTriggerOfABatchGetsItsOwnOutcomeAndOneRefusedStopsNoOther(t *testing.T) {
	t.Parallel()
	b := newBatchSite(t, nil)
	missing := ids.New()
	form := url.Values{"do": {"pause"}, "note": {" 维护窗口 "}, "id": {b.triggers["a"], missing, "nonsense", b.triggers["off"], b.triggers["a"]},
		"project": {"shop"}, "q": {"a"}, "page": {"2"}}
	w := b.do(apitoken.Operate, "/triggers/batch?lang=zh", form)
	page := w.Body.String()
	want := []string{
		"done: shop/a: 完成 已暂停。",
		"refused: " + missing + ": 被拒绝 " + unquoted(refusalsZH[schedule.RefusalTriggerMissing]),
		"refused: nonsense: 被拒绝 " + unquoted(refusalsZH[schedule.RefusalNotATriggerID]),
		"done: shop/off: 完成 已暂停。",
	}
	got := batchLines(page)
	if w.Code != http.StatusOK || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("a batch pause: %d with lines\n%s\nwant\n%s\n%s", w.Code, strings.Join(got, "\n"), strings.Join(want, "\n"), page)
	}
	if !strings.Contains(page, `<p id="batch-summary">已选 4 个；完成 2 个；被拒绝 2 个。</p>`) || !strings.Contains(page, `id="batch-back" href="/triggers?page=2&amp;project=shop&amp;q=a"`) {
		t.Errorf("the answer lacks its summary or the way back to the list as it was:\n%s", page)
	}
	for _, name := range []string{"a", "off"} {
		if paused, rec := b.paused(t, name); !paused || rec.Action != "pause" || rec.Actor != "console:token:web-operate@192.0.2.1" || rec.Note != "维护窗口" {
			t.Errorf("%s: paused %v, newest audit record %+v; want paused by the session's actor with the note", name, paused, rec)
		}
	}
	if paused, _ := b.paused(t, "b"); paused {
		t.Error("b, not selected, was paused")
	}
	w = b.do(apitoken.Operate, "/triggers/batch?lang=en", url.Values{"do": {"pause"}, "id": {b.triggers["a"], b.triggers["b"]}})
	if got := batchLines(w.Body.String()); strings.Join(got, "\n") != "done: shop/a: done it was paused already; nothing changed.\ndone: shop/b: done paused." {
		t.Errorf("pausing a paused and an active trigger: %q", got)
	}
}

// A batch with nothing selected, with more triggers than a page of the
// list, or with a pause note that cannot be kept is refused whole, saying
// what to do, in the page's language, and does nothing.
func TestABatchWithNoneOrTooManySelectedOrABadNoteIsRefusedWholeAndDoesNothing(t *testing.T) {
	t.Parallel()
	b := newBatchSite(t, nil)
	many := []string{b.triggers["a"]}
	for range maxBatch {
		many = append(many, ids.New())
	}
	for _, c := range []struct {
		form url.Values
		lang string
		code int
		want string
	}{
		{url.Values{"do": {"pause"}}, "en", http.StatusBadRequest, "No trigger was selected: tick the box beside each trigger to act on, then press the button again."},
		{url.Values{"do": {"pause"}, "id": many}, "en", http.StatusBadRequest, "101 triggers were selected, and one form acts on at most 100 (a page of the list); nothing was done."},
		{url.Values{"do": {"pause"}, "id": many}, "zh", http.StatusBadRequest, "选择了 101 个触发器，而一次表单最多操作 100 个（列表的一页）；未做任何操作。"},
		{url.Values{"do": {"pause"}, "id": {b.triggers["a"]}, "note": {"two\nlines"}}, "zh", http.StatusBadRequest, refusalsZH[schedule.RefusalPauseNoteNotText]},
		{url.Values{"do": {"explode"}, "id": {b.triggers["a"]}}, "en", http.StatusBadRequest, `the form asks for "explode", which is no batch action`},
	} {
		w := b.do(apitoken.Operate, "/triggers/batch?lang="+c.lang, c.form)
		if page := html.UnescapeString(w.Body.String()); w.Code != c.code || !strings.Contains(page, c.want) {
			t.Errorf("%v (%s): %d, want %d saying %q:\n%s", c.form["do"], c.lang, w.Code, c.code, c.want, page)
		}
	}
	if paused, _ := b.paused(t, "a"); paused {
		t.Error("a refused batch paused trigger a")
	}
}

// Enable and disable in a batch need the admin scope, as the single
// trigger's forms do, and a server that cannot publish (a cluster
// replica's runtime role) refuses them as the single form does, in the
// page's language (a Chinese one names the scopes in Chinese), enabling
// nothing.
func TestABatchEnableNeedsTheAdminScopeAndAServerThatCanPublish(t *testing.T) {
	t.Parallel()
	b := newBatchSite(t, nil)
	form := url.Values{"do": {"enable"}, "id": {b.triggers["off"]}}
	if w := b.do(apitoken.Operate, "/triggers/batch?lang=en", form); w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "scope operate does not allow this; it needs admin") {
		t.Errorf("enable by an operate session: %d\n%s", w.Code, w.Body)
	}
	if w := b.do(apitoken.Operate, "/triggers/batch?lang=zh", form); w.Code != http.StatusForbidden || !strings.Contains(html.UnescapeString(w.Body.String()), "你的会话权限为“操作”，不允许此操作；需要“管理”权限。") {
		t.Errorf("enable by an operate session, in Chinese: %d; want the scopes in the words the tokens page names them by\n%s", w.Code, w.Body)
	}
	replica := newBatchSite(t, cannotPublish)
	form = url.Values{"do": {"enable"}, "id": {replica.triggers["off"]}}
	if w := replica.do(apitoken.Admin, "/triggers/batch?lang=zh", form); w.Code != http.StatusConflict || !strings.Contains(html.UnescapeString(w.Body.String()), asShown(refusalsZH[refusalCannotEnable])) {
		t.Errorf("enable where the server cannot publish: %d\n%s", w.Code, w.Body)
	}
	w := b.do(apitoken.Admin, "/triggers/batch?lang=en", url.Values{"do": {"enable"}, "id": {b.triggers["off"], b.triggers["a"]}})
	if got := batchLines(w.Body.String()); strings.Join(got, "\n") != "done: shop/off: done enabled (revision 2).\ndone: shop/a: done it was enabled already; nothing changed." {
		t.Errorf("enable by an admin: %q", got)
	}
	d, err := b.st.TriggerDetail(t.Context(), b.triggers["off"], 1)
	if err != nil || !d.Enabled || len(d.Audit) == 0 || d.Audit[0].Action != "enable" || d.Audit[0].Actor != "console:token:web-admin@192.0.2.1" {
		t.Errorf("off after the batch: %+v %v; want enabled, audited with the admin session's actor", d.Audit, err)
	}
}

// stalledPauser is a real store whose pause of one trigger does not answer
// within the request's time.
type stalledPauser struct {
	*sqlitestore.Store
	stalled string
}

func (p stalledPauser) TriggerPause(ctx context.Context, r schedule.PauseRequest) (schedule.PauseResult, error) {
	if r.TriggerID == p.stalled {
		return schedule.PauseResult{}, stalls(ctx)
	}
	return p.Store.TriggerPause(ctx, r)
}

// A batch that spends the request's time on one trigger says so on its
// line, and the triggers after it are said to be not tried — a state of
// their own, not refused, in both languages and counted apart in the
// summary — to select again, and are left as they were: the answer still
// comes, within the time.
func TestABatchOutOfTimeSaysWhichTriggersItDidNotTry(t *testing.T) {
	t.Parallel()
	b := newBatchSite(t, func(cfg *Config) { cfg.RequestTimeout = 300 * time.Millisecond })
	b.c.cfg.Pauser = stalledPauser{Store: b.st, stalled: b.triggers["a"]}
	for _, c := range []struct{ lang, refused, label, untried, summary string }{
		{"en", "refused", "not tried", "the form used up its 300ms before it reached this trigger: select it again on the list and send the form.",
			"Selected: 3. Done: 0. Refused: 1. Not tried: 2."},
		{"zh", "被拒绝", "未尝试", "表单在处理到这个触发器之前已用完它的 300ms：请在列表中再次勾选它并提交表单。",
			"已选 3 个；完成 0 个；被拒绝 1 个。未尝试 2 个。"},
	} {
		w := b.do(apitoken.Operate, "/triggers/batch?lang="+c.lang, url.Values{"do": {"pause"}, "id": {b.triggers["a"], b.triggers["b"], b.triggers["off"]}})
		want := []string{
			"refused: shop/a: " + c.refused + " " + fmt.Sprintf(messages[c.lang]["err.timeout"], 300*time.Millisecond),
			"untried: " + b.triggers["b"] + ": " + c.label + " " + c.untried,
			"untried: " + b.triggers["off"] + ": " + c.label + " " + c.untried,
		}
		page := w.Body.String()
		if got := batchLines(page); w.Code != http.StatusOK || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: a batch out of time: %d\n%s\nwant\n%s", c.lang, w.Code, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if summary := `<p id="batch-summary">` + c.summary + `</p>`; !strings.Contains(page, summary) {
			t.Errorf("%s: the answer does not sum up %s:\n%s", c.lang, summary, page)
		}
	}
	for _, name := range []string{"b", "off"} {
		if paused, _ := b.paused(t, name); paused {
			t.Errorf("%s, untried, was paused", name)
		}
	}
}

// publishQuiet publishes the trigger name of shop's task report, whose
// cron never falls due while a test runs, and returns its id.
func (b *batchSite) publishQuiet(t *testing.T, name string, enabled bool) string {
	t.Helper()
	ctx := t.Context()
	svc := catalog.Service{Store: b.st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
	p, err := b.st.ProjectByName(ctx, "shop")
	if err != nil {
		t.Fatal(err)
	}
	tk, err := b.st.TaskByName(ctx, p.ID, "report")
	if err != nil {
		t.Fatal(err)
	}
	cron := trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}
	pub, _, err := svc.PublishTrigger(ctx, p.ID, ids.New(), tk, 0, ids.New(), trigger.Spec{Name: name, Enabled: enabled, Cron: cron})
	if err != nil {
		t.Fatal(err)
	}
	return pub.TriggerID
}
