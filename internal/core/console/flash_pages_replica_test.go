package console

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// A backfill of the most Runs one backfill here admits, sent on one
// replica, shows its result on another serving the same session: the
// counts, the first Runs it links to and how many more there are.
func TestABackfillOfAThousandRunsShowsItsResultOnAnotherReplica(t *testing.T) {
	t.Parallel()
	p := newReplicaPair(t)
	ctx := t.Context()
	a, err := p.site.st.TriggerDetail(ctx, p.site.triggers["a"], 1)
	if err != nil {
		t.Fatal(err)
	}
	svc := catalog.Service{Store: p.site.st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
	tk, _, err := svc.PublishTask(ctx, a.TriggerStatus.ProjectID, ids.New(), 0, ids.New(), task.Spec{Name: "tick", Enabled: true,
		Command: task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: "true", TimeoutMs: time.Minute.Milliseconds()}})
	if err != nil {
		t.Fatal(err)
	}
	tg, _, err := svc.PublishTrigger(ctx, a.TriggerStatus.ProjectID, ids.New(), tk, 0, ids.New(), trigger.Spec{Name: "minutely", Enabled: true,
		Cron: trigger.Cron{Expression: "0 * * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}})
	if err != nil {
		t.Fatal(err)
	}
	// Both bounds are in the window: a minute's cron fires backfillMax
	// times in it.
	from := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	to := from.Add((backfillMax - 1) * time.Minute)
	br, csrf := p.signIn(t, p.a)
	w := br.do(http.MethodPost, "/triggers/"+tg.TriggerID+"/backfill", url.Values{"csrf": {csrf},
		"from": {from.Format(run.WindowLayouts[0])}, "to": {to.Format(run.WindowLayouts[0])}})
	loc := w.Header().Get("Location")
	if w.Code != http.StatusSeeOther || !strings.Contains(loc, flashParam+"=") {
		t.Fatalf("backfill: %d to %q, want 303 naming a flash:\n%s", w.Code, loc, w.Body)
	}
	br.c = p.b
	page := html.UnescapeString(br.do(http.MethodGet, loc, nil).Body.String())
	if !strings.Contains(page, `id="backfill-done"`) || !strings.Contains(page, fmt.Sprintf(`<dd id="backfill-new">%d</dd>`, backfillMax)) {
		t.Fatalf("the other replica does not show the backfill of %d Runs done:\n%s", backfillMax, page)
	}
	if links := regexp.MustCompile(`<li><a href="/runs/[^"]+">`).FindAllString(page, -1); len(links) != backfillRunsShown ||
		!strings.Contains(page, fmt.Sprintf("<li>and %d more</li>", backfillMax-backfillRunsShown)) {
		t.Fatalf("the other replica links %d Runs, want %d and a line saying %d more:\n%s", len(links), backfillRunsShown, backfillMax-backfillRunsShown, page)
	}
}

// A definitions preview reaches its page whichever replica serves it, and
// its confirm applies the file previewed on any replica: a small file's
// preview rides in a cookie to the page its redirect names, on another
// replica; a file too large for a cookie is previewed in the form's own
// answer, held in no replica's memory.
func TestADefinitionsPreviewReachesItsPageAndItsConfirmOnAnyReplica(t *testing.T) {
	t.Parallel()
	p := newReplicaPair(t, canPublish)
	br, csrf := p.signIn(t, p.a)

	small := "project: garden\ntasks:\n  - name: water\n    script: echo\n"
	w := br.do(http.MethodPost, "/definitions/preview", url.Values{"csrf": {csrf}, "yaml": {small}})
	loc := w.Header().Get("Location")
	if w.Code != http.StatusSeeOther || !strings.Contains(loc, flashParam+"=") {
		t.Fatalf("preview: %d to %q, want 303 naming a flash:\n%s", w.Code, loc, w.Body)
	}
	br.c = p.b
	form := confirmForm(t, br.do(http.MethodGet, loc, nil).Body.String(), csrf)
	if form.Get("yaml") != small {
		t.Fatalf("the other replica's preview confirms the file %q, want the file previewed %q", form.Get("yaml"), small)
	}
	br.c = p.a
	if w := br.do(http.MethodPost, "/definitions/apply", form); w.Code != http.StatusSeeOther {
		t.Fatalf("the confirm of the preview shown by the other replica: %d, want 303:\n%s", w.Code, w.Body)
	}

	big := largeDefinitions(t, "orchard", 200)
	br.c = p.a
	w = br.do(http.MethodPost, "/definitions/preview", url.Values{"csrf": {csrf}, "yaml": {big}})
	for _, ck := range w.Result().Cookies() {
		if strings.HasPrefix(ck.Name, p.a.flashCookieName("")) && ck.MaxAge >= 0 {
			t.Fatalf("a preview of %d bytes set a flash cookie of %d bytes", len(big), len(ck.Value))
		}
	}
	if w.Code != http.StatusOK {
		t.Fatalf("a preview too large for a cookie: %d, want its page as the answer:\n%s", w.Code, w.Body)
	}
	form = confirmForm(t, w.Body.String(), csrf)
	if form.Get("yaml") != big {
		t.Fatalf("the large preview confirms a file of %d bytes, want the %d previewed", len(form.Get("yaml")), len(big))
	}
	s, ok := p.a.sessions.held(br.cookies[sessionCookie])
	if !ok {
		t.Fatal("the replica that previewed holds no entry of the session")
	}
	s.flashes.mu.Lock()
	held := len(s.flashes.byID)
	s.flashes.mu.Unlock()
	if held != 0 {
		t.Fatalf("the replica that previewed holds %d flashes in its memory", held)
	}
	br.c = p.b
	if w := br.do(http.MethodPost, "/definitions/apply", form); w.Code != http.StatusSeeOther {
		t.Fatalf("the confirm of the large preview on the other replica: %d, want 303:\n%s", w.Code, w.Body)
	}
	for _, c := range []struct{ project, object string }{{"garden", "water"}, {"orchard", firstTask(big)}} {
		if page := br.do(http.MethodGet, "/definitions?project="+c.project, nil).Body.String(); !strings.Contains(page, "name: "+c.object) {
			t.Fatalf("after the confirm, project %s's definitions do not hold %s:\n%s", c.project, c.object, page)
		}
	}
}

// An apply's result, sent on one replica, is shown by another serving the
// same session: whole when it fits in a cookie; else its changes first,
// as many rows as fit, with the count of each change it does not list,
// so that the rows listed and the rows counted are every object of the
// file; and in both, the project's definitions as the apply left them.
func TestAnAppliesResultIsShownOnAnotherReplicaCountingWhatItDoesNotList(t *testing.T) {
	t.Parallel()
	p := newReplicaPair(t, canPublish)
	br, csrf := p.signIn(t, p.a)
	big := largeDefinitions(t, "orchard", 200)
	for _, c := range []struct {
		project, file string
		objects       int // the project, its tasks and triggers
		cut           bool
	}{
		{"garden", "project: garden\ntasks:\n  - name: water\n    script: echo\n", 2, false},
		{"orchard", big, 401, true},
	} {
		br.c = p.a
		w := br.do(http.MethodPost, "/definitions/apply", url.Values{"csrf": {csrf}, "yaml": {c.file}})
		loc := w.Header().Get("Location")
		if w.Code != http.StatusSeeOther || !strings.Contains(loc, flashParam+"=") {
			t.Fatalf("%s: apply: %d to %q, want 303 naming a flash:\n%s", c.project, w.Code, loc, w.Body)
		}
		br.c = p.b
		page := html.UnescapeString(br.do(http.MethodGet, loc, nil).Body.String())
		if !strings.Contains(page, `id="def-applied"`) {
			t.Fatalf("%s: the other replica does not show the apply's result:\n%s", c.project, page)
		}
		listed := strings.Count(page, `<tr class="change-created">`)
		counted := 0
		for _, m := range regexp.MustCompile(`<span data-change="(\w+)">[^<]* (\d+)</span>`).FindAllStringSubmatch(page, -1) {
			if m[1] != string(catalog.Created) {
				t.Fatalf("%s: the result counts %s rows it does not list, want only created ones:\n%s", c.project, m[1], page)
			}
			n, _ := strconv.Atoi(m[2])
			counted += n
		}
		if listed+counted != c.objects || (counted > 0) != c.cut || listed == 0 {
			t.Fatalf("%s: the result lists %d rows and counts %d more, want %d in all (cut: %v):\n%s", c.project, listed, counted, c.objects, c.cut, page)
		}
		if !strings.Contains(page, "name: "+firstTask(c.file)) {
			t.Fatalf("%s: the page after the apply does not show the project's definitions:\n%s", c.project, page)
		}
	}
}

// confirmForm is the preview page's confirm form as the browser of the
// session whose CSRF value is csrf sends it.
func confirmForm(t *testing.T, page, csrf string) url.Values {
	t.Helper()
	if !strings.Contains(page, `id="def-confirm"`) {
		t.Fatalf("the page has no preview to confirm:\n%s", page)
	}
	form := previewForm(t, page)
	form.Set("csrf", csrf)
	return form
}

// largeDefinitions is a definitions file of project holding n tasks, each
// with a trigger, named at random so that no compression makes their list
// small.
func largeDefinitions(t *testing.T, project string, n int) string {
	t.Helper()
	var tasks, triggers strings.Builder
	for range n {
		b := make([]byte, 8)
		if _, err := rand.Read(b); err != nil {
			t.Fatal(err)
		}
		name := hex.EncodeToString(b)
		tasks.WriteString("  - {name: t" + name + ", script: echo}\n")
		triggers.WriteString("  - {name: g" + name + ", task: t" + name + ", cron: '0 3 1 1 *', timezone: UTC}\n")
	}
	return "project: " + project + "\ntasks:\n" + tasks.String() + "triggers:\n" + triggers.String()
}

// firstTask is the name of the first task of a file largeDefinitions
// writes, or of a file of one task written as a block.
func firstTask(file string) string {
	m := regexp.MustCompile(`(?m)^  - (?:\{name: |name: )(\w+)`).FindStringSubmatch(file)
	if m == nil {
		return ""
	}
	return m[1]
}

// An apply's result too large for a cookie even without its rows (notes
// that say much) still says what the apply did: the cookie opens to the
// project, the count of changes and the count of every row by change,
// its notes left out and the page saying so.
func TestAnApplysResultTooLargeEvenWithoutItsRowsStillSaysWhatItDid(t *testing.T) {
	t.Parallel()
	d := definitionsData{CanPublish: true, Project: "orchard", Step: "applied", Changes: 300}
	for range 300 {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			t.Fatal(err)
		}
		name := "t" + hex.EncodeToString(b[:8])
		d.Diff = append(d.Diff, apply.Result{Kind: "task", Name: name, Change: catalog.Created, Revision: 1})
		d.Notes = append(d.Notes, "task "+name+" says "+hex.EncodeToString(b[8:]))
	}
	key := randomID()
	v, ok := sealFlash("session-token", key, flash{Page: "definitions", Data: d, expiresMs: time.Now().Add(time.Minute).UnixMilli()})
	if !ok {
		t.Fatal("the apply's result went in no cookie")
	}
	f, ok := openFlash("session-token", key, v)
	got, isData := f.Data.(definitionsData)
	if !ok || !isData {
		t.Fatalf("the cookie does not open to a definitions page: %v %T", ok, f.Data)
	}
	counted := 0
	for _, u := range got.Unlisted {
		counted += u.N
	}
	if got.Project != "orchard" || got.Step != "applied" || got.Changes != 300 || len(got.Diff)+counted != 300 || counted == 0 || !got.Short || len(got.Notes) != 0 {
		t.Fatalf("the result carried is %s %s, %d changes, %d rows listed and %d counted, short %v with %d notes; want orchard applied, 300 changes, 300 rows, short without notes",
			got.Project, got.Step, got.Changes, len(got.Diff), counted, got.Short, len(got.Notes))
	}
	w := httptest.NewRecorder()
	newBatchSite(t, nil).c.render(w, httptest.NewRequest(http.MethodGet, "/definitions?project=orchard", nil), http.StatusOK, "definitions", nil, got)
	if page := w.Body.String(); !strings.Contains(page, `id="def-applied"`) || !strings.Contains(page, `id="def-short"`) || !strings.Contains(page, `id="def-unlisted"`) {
		t.Fatalf("the page of the result cut short does not say it was applied, what it does not list and that it left its notes out:\n%s", page)
	}
}
