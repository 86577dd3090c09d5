package console

import (
	"html"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/subscription"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// subscriptionForm is the add form's fields for url and branch into
// project p, pulled at 6 past every hour in Asia/Shanghai.
func subscriptionForm(p, u, branch string) url.Values {
	return url.Values{"project": {p}, "url": {u}, "branch": {branch}, "cron": {"6 * * * *"}, "timezone": {"Asia/Shanghai"},
		"match": {"jd_|jx_"}, "exclude": {"backup"}, "enabled": {"1"}}
}

// subscriptionRecords are the trail's subscription records, newest first.
func subscriptionRecords(t *testing.T, site *scriptsSite) []audit.Record {
	t.Helper()
	page, err := site.st.AuditList(t.Context(), audit.Query{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Record
	for _, r := range page.Records {
		if r.ObjectKind == audit.KindSubscription {
			out = append(out, r)
		}
	}
	return out
}

// definitionsOf is project p as the store has it now.
func definitionsOf(t *testing.T, site *scriptsSite, p string) catalog.Definitions {
	t.Helper()
	d, err := site.st.ProjectDefinitions(t.Context(), p, 100)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// taskNamed is project d's task of name, and whether it has one.
func taskNamed(d catalog.Definitions, name string) (task.Revision, bool) {
	for _, tk := range d.Tasks {
		if tk.Spec.Name == name {
			return tk, true
		}
	}
	return task.Revision{}, false
}

// The add form publishes the subscription as the converter's pull task
// and trigger (repo-OWNER-REPO-BRANCH, the same script), labelled with
// what it subscribes to, and the list shows it whole: URL without its
// token, branch, schedule, folder, match and exclude, enabled, no pull
// yet, its next pull; the record names it and its URL, never the token.
func TestTheAddFormPublishesTheConvertersPullTaskAndTheListShowsIt(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	const secretURL = "https://ghp_SECRET@github.com/Owner/Scripts.git"
	w := site.do(apitoken.Admin, "/subscriptions/new?lang=en", subscriptionForm("jd", secretURL, "main"))
	page := html.UnescapeString(w.Body.String())
	if w.Code != http.StatusOK || !strings.Contains(page, "Subscription repo-owner-scripts-main added") {
		t.Fatalf("the add: %d, want the list saying it was added:\n%s", w.Code, page)
	}
	for _, want := range []string{`id="sub-repo-owner-scripts-main"`, "https://github.com/Owner/Scripts.git", "<code>main</code>", "<code>6 * * * *</code>", "Asia/Shanghai",
		`href="/scripts?path=Owner_Scripts_main"`, "jd_|jx_", "backup", `class="sub-enabled">yes`, `class="sub-last">—`, `class="sub-pull"`,
		`href="/scripts/tasks?path=Owner_Scripts_main&match=jd_%7cjx_&exclude=backup&project=jd"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the list lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "ghp_SECRET") || strings.Contains(page, `class="sub-next">—`) {
		t.Errorf("the list shows the URL's token, or no next pull:\n%s", page)
	}
	tk, ok := taskNamed(definitionsOf(t, site, "jd"), "repo-owner-scripts-main")
	want, _ := crontab.PullOf(secretURL, "main")
	if !ok || tk.Spec.Command.Script != want.Script || tk.Spec.Labels[subscription.LabelURL] != secretURL || tk.Spec.Labels[subscription.LabelMatch] != "jd_|jx_" ||
		!maps.Equal(taskEnv(tk), want.Env) || strings.Contains(tk.Spec.Command.Script, "SECRET") {
		t.Errorf("the task: %v %+v; want the converter's script, without the token, with the subscription's labels and the token in its env", ok, tk.Spec)
	}
	recs := subscriptionRecords(t, site)
	if len(recs) != 1 || recs[0].Action != audit.SubscriptionCreated || recs[0].ObjectName != "repo-owner-scripts-main" || recs[0].Project != "jd" ||
		!strings.Contains(recs[0].Note, "https://github.com/Owner/Scripts.git") || strings.Contains(recs[0].Note, "SECRET") {
		t.Errorf("the records: %+v; want one subscription.created naming the URL without its token", recs)
	}
	if w := site.send(apitoken.Admin, "/definitions/task?project=jd&task=repo-owner-scripts-main", nil); w.Code != http.StatusOK {
		t.Errorf("the subscription's task is not editable as a task: %d\n%s", w.Code, w.Body)
	}
}

// Each field a subscription does not take is refused on the form in its
// own words (English and Chinese), every mistake at once, the form
// keeping what was typed; nothing is published or recorded.
func TestTheSubscriptionFormRefusesEachBadFieldInItsOwnWords(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	for _, c := range []struct {
		url, branch, match, cron string
		want                     []string
	}{
		{"ftp://host/o/r.git", "", "", "6 * * * *", []string{"is of no form a subscription takes"}},
		{"ext::sh -c touch% /tmp/x", "", "", "6 * * * *", []string{"holds a space or a control character"}},
		{"ext::sh", "", "", "6 * * * *", []string{"is of no form a subscription takes"}},
		{"--upload-pack=touch", "", "", "6 * * * *", []string{"starts with '-'"}},
		{"https://host/repo", "", "", "6 * * * *", []string{"names no owner and repository"}},
		{"https://host/o/r.git", "a..b", "(", "6 * * * *", []string{`the branch "a..b" is no name git takes`, `match: "(" is no regular expression`}},
		{"https://host/o/r.git", "", "", "61 * * * *", []string{"minute"}},
	} {
		f := subscriptionForm("jd", c.url, c.branch)
		f.Set("match", c.match)
		f.Set("cron", c.cron)
		w := site.do(apitoken.Admin, "/subscriptions/new?lang=en", f)
		page := html.UnescapeString(w.Body.String())
		if w.Code != http.StatusBadRequest || !strings.Contains(page, `id="sub-errors"`) || !strings.Contains(page, `value="`+c.url+`"`) {
			t.Errorf("%q: %d, want 400 on the form keeping the URL:\n%s", c.url, w.Code, page)
		}
		for _, want := range c.want {
			if !strings.Contains(page, want) {
				t.Errorf("%q: the refusal lacks %q:\n%s", c.url, want, page)
			}
		}
	}
	w := site.do(apitoken.Admin, "/subscriptions/new?lang=zh", subscriptionForm("jd", "ftp://host/o/r.git", "a..b"))
	if page := html.UnescapeString(w.Body.String()); !strings.Contains(page, "仓库地址“ftp://host/o/r.git”不可用") || !strings.Contains(page, "分支“a..b”不是 git 接受的分支名") {
		t.Errorf("the Chinese refusals:\n%s", page)
	}
	if _, err := site.st.ProjectDefinitions(t.Context(), "jd", 10); err == nil || len(subscriptionRecords(t, site)) != 0 {
		t.Errorf("a refused form published project jd (%v) or recorded %d", err, len(subscriptionRecords(t, site)))
	}
}

// A subscription's name is its folder's: the same repository and branch
// are refused in any project, the existing one named.
func TestASubscriptionOfATakenNameIsRefusedInEveryProject(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	if w := site.do(apitoken.Admin, "/subscriptions/new", subscriptionForm("jd", "https://github.com/o/r.git", "")); w.Code != http.StatusOK {
		t.Fatalf("the first: %d\n%s", w.Code, w.Body)
	}
	for _, p := range []string{"jd", "shop"} {
		w := site.do(apitoken.Admin, "/subscriptions/new?lang=en", subscriptionForm(p, "git@github.com:o/r.git", ""))
		if page := html.UnescapeString(w.Body.String()); w.Code != http.StatusConflict || !strings.Contains(page, "a subscription named repo-o-r exists already (project jd)") {
			t.Errorf("a second repo-o-r in %s: %d, want 409 naming the first:\n%s", p, w.Code, page)
		}
	}
	if _, ok := taskNamed(definitionsOf(t, site, "shop"), "repo-o-r"); ok {
		t.Error("the refused one was published in shop")
	}
}

// An edit changes the subscription's schedule, regular expressions and
// enabled state and keeps what was set on its task as a task (a label
// of its own, its timeout); a URL or branch making another name is
// refused, naming both.
func TestAnEditKeepsWhatWasSetOnTheTaskAsATask(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	if w := site.do(apitoken.Admin, "/subscriptions/new", subscriptionForm("jd", "https://github.com/o/r.git", "")); w.Code != http.StatusOK {
		t.Fatalf("the add: %d\n%s", w.Code, w.Body)
	}
	d := definitionsOf(t, site, "jd")
	tk, _ := taskNamed(d, "repo-o-r")
	spec := tk.Spec
	spec.Labels = map[string]string{"team": "ops", subscription.LabelURL: "https://github.com/o/r.git"}
	spec.Command.TimeoutMs = 300_000
	svc := catalog.Service{Store: site.st, Executor: task.LocalProcess, NowMs: site.c.cfg.NowMs}
	if _, _, err := svc.PublishTask(t.Context(), d.Project.ID, tk.TaskID, tk.Revision, ids.New(), spec); err != nil {
		t.Fatal(err)
	}
	if w := site.send(apitoken.Admin, "/subscriptions/edit?name=repo-o-r", nil); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `name="url" value="https://github.com/o/r.git"`) {
		t.Fatalf("the edit form: %d\n%s", w.Code, w.Body)
	}
	f := subscriptionForm("jd", "https://github.com/o/r.git", "")
	f.Set("name", "repo-o-r")
	f.Set("cron", "30 5 * * *")
	f.Set("match", "jx_")
	f.Del("enabled")
	if w := site.do(apitoken.Admin, "/subscriptions/edit?lang=en", f); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `class="sub-enabled">no`) {
		t.Fatalf("the edit: %d\n%s", w.Code, w.Body)
	}
	d = definitionsOf(t, site, "jd")
	tk, _ = taskNamed(d, "repo-o-r")
	sub, _ := subscription.Named(subscription.Of(d), "repo-o-r")
	if tk.Spec.Labels["team"] != "ops" || tk.Spec.Command.TimeoutMs != 300_000 || tk.Spec.Enabled || sub.Match != "jx_" || sub.Exclude != "backup" || sub.Cron != "30 5 * * *" || sub.Enabled {
		t.Errorf("after the edit: task %+v, subscription %+v", tk.Spec, sub)
	}
	if recs := subscriptionRecords(t, site); len(recs) != 2 || recs[0].Action != audit.SubscriptionUpdated || !strings.Contains(recs[0].Note, "disabled") {
		t.Errorf("the records: %+v; want subscription.updated saying it is disabled", recs)
	}
	f.Set("branch", "dev")
	w := site.do(apitoken.Admin, "/subscriptions/edit?lang=en", f)
	if page := html.UnescapeString(w.Body.String()); w.Code != http.StatusBadRequest || !strings.Contains(page, "make the subscription repo-o-r-dev, not repo-o-r") {
		t.Errorf("an edit to another branch: %d, want 400 naming both:\n%s", w.Code, page)
	}
}

// A delete asks to confirm, saying the folder stays unless the box is
// ticked; confirmed, the task loses its subscription labels and is
// disabled with its trigger (a task is never deleted), the folder stays,
// and the record says so; with the box ticked the folder goes, within
// the scripts folder.
func TestDeletingASubscriptionKeepsItsFolderUnlessTheBoxIsTicked(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	for _, u := range []string{"https://github.com/o/keep.git", "https://github.com/o/drop.git"} {
		if w := site.do(apitoken.Admin, "/subscriptions/new", subscriptionForm("jd", u, "")); w.Code != http.StatusOK {
			t.Fatalf("the add: %d\n%s", w.Code, w.Body)
		}
	}
	site.write(t, "o_keep/jd_a.js", "1\n")
	site.write(t, "o_drop/jd_b.js", "2\n")
	w := site.send(apitoken.Admin, "/subscriptions/delete?name=repo-o-keep&lang=en", nil)
	if page := html.UnescapeString(w.Body.String()); w.Code != http.StatusOK || !strings.Contains(page, "Its folder o_keep stays in the scripts folder") ||
		!strings.Contains(page, `id="sub-delete-folder"`) {
		t.Fatalf("the confirm: %d\n%s", w.Code, page)
	}
	if w := site.do(apitoken.Admin, "/subscriptions/delete?lang=en", url.Values{"name": {"repo-o-keep"}}); w.Code != http.StatusOK ||
		!strings.Contains(w.Body.String(), "its folder o_keep stays") {
		t.Fatalf("the delete: %d\n%s", w.Code, w.Body)
	}
	if w := site.do(apitoken.Admin, "/subscriptions/delete?lang=en", url.Values{"name": {"repo-o-drop"}, "folder": {"1"}}); w.Code != http.StatusOK {
		t.Fatalf("the delete with its folder: %d\n%s", w.Code, w.Body)
	}
	if site.read(t, "o_keep/jd_a.js") != "1\n" {
		t.Error("the folder left was deleted")
	}
	if _, err := os.Stat(filepath.Join(site.dir, "o_drop")); !os.IsNotExist(err) {
		t.Errorf("the folder asked deleted is there: %v", err)
	}
	d := definitionsOf(t, site, "jd")
	tk, ok := taskNamed(d, "repo-o-keep")
	if subs := subscription.Of(d); !ok || tk.Spec.Enabled || len(subs) != 0 {
		t.Errorf("after the deletes: task %v %+v, subscriptions %+v; want the task kept, disabled, no subscription", ok, tk.Spec, subs)
	}
	for _, tr := range d.Triggers {
		if tr.Spec.Enabled {
			t.Errorf("trigger %s is still enabled", tr.Spec.Name)
		}
	}
	recs := subscriptionRecords(t, site)
	if len(recs) != 4 || recs[0].Action != audit.SubscriptionDeleted || !strings.Contains(recs[0].Note, "its folder o_drop deleted (1 entries)") ||
		!strings.Contains(recs[1].Note, "its folder o_keep kept") {
		t.Errorf("the records: %+v", recs)
	}
	if w := site.send(apitoken.Admin, "/subscriptions/delete?name=repo-o-keep&lang=en", nil); w.Code != http.StatusNotFound {
		t.Errorf("a deleted subscription's confirm: %d, want 404", w.Code)
	}
}

// Pull now admits a Run of the pull task as its trigger's Run now does,
// records it with the Run, and shows the Run (its live log); the same
// form sent again finds that Run, recorded once.
func TestPullNowRunsThePullTaskAndShowsItsRun(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	if w := site.do(apitoken.Admin, "/subscriptions/new", subscriptionForm("jd", "https://github.com/o/r.git", "")); w.Code != http.StatusOK {
		t.Fatalf("the add: %d\n%s", w.Code, w.Body)
	}
	w := site.send(apitoken.Admin, "/subscriptions/pull", url.Values{"name": {"repo-o-r"}, "request": {"req-1"}})
	to := w.Header().Get("Location")
	if w.Code != http.StatusSeeOther || !strings.HasPrefix(to, "/runs/") {
		t.Fatalf("pull now: %d to %q, want the Run's page\n%s", w.Code, to, w.Body)
	}
	// The same form sent again (a double click) finds the same Run.
	if again := site.send(apitoken.Admin, "/subscriptions/pull", url.Values{"name": {"repo-o-r"}, "request": {"req-1"}}); again.Code != http.StatusSeeOther || again.Header().Get("Location") != to {
		t.Fatalf("the form sent again: %d to %q, want the same Run %s", again.Code, again.Header().Get("Location"), to)
	}
	recs := subscriptionRecords(t, site)
	if len(recs) != 2 || recs[0].Action != audit.SubscriptionPulled || !strings.Contains(recs[0].Note, "Run "+strings.TrimPrefix(to, "/runs/")) {
		t.Errorf("the records: %+v; want one subscription.pulled naming the Run", recs)
	}
	if page := site.send(apitoken.Admin, "/subscriptions", nil).Body.String(); !strings.Contains(page, `<a href="`+to+`" class="sub-last-run">`) {
		t.Errorf("the list does not link the last pull's Run %s:\n%s", to, page)
	}
	if w := site.send(apitoken.Admin, "/subscriptions/pull", url.Values{"name": {"repo-nope"}}); w.Code != http.StatusNotFound {
		t.Errorf("pull now of no subscription: %d, want 404", w.Code)
	}
}

// Tasks from this subscription opens the Scripts page's preview form of
// its folder with its match, exclude and project filled in.
func TestTasksFromASubscriptionOpenTheScriptsPreviewWithItsExpressions(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	site.write(t, "o_r/jd_a.js", "// cron: 0 8 * * *\n")
	w := site.send(apitoken.Admin, "/scripts/tasks?path=o_r&match=jd_%7cjx_&exclude=backup&project=jd", nil)
	page := html.UnescapeString(w.Body.String())
	for _, want := range []string{`name="path" value="o_r"`, `id="sti-match" name="match" value="jd_|jx_"`, `id="sti-exclude" name="exclude" value="backup"`, `name="project" list="sti-projects" value="jd"`} {
		if w.Code != http.StatusOK || !strings.Contains(page, want) {
			t.Errorf("the form: %d, lacking %q:\n%s", w.Code, want, page)
		}
	}
}

// While the clock is held no subscription is added, changed, deleted or
// pulled, and nothing is recorded; the list is still shown.
func TestASubscriptionChangeIsRefusedWhileTheClockIsHeld(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t, func(cfg *Config) { cfg.Writes = heldClock{} })
	for _, s := range []struct {
		path string
		form url.Values
	}{
		{"/subscriptions/new", subscriptionForm("jd", "https://github.com/o/r.git", "")},
		{"/subscriptions/edit", url.Values{"name": {"repo-o-r"}}},
		{"/subscriptions/delete", url.Values{"name": {"repo-o-r"}}},
		{"/subscriptions/pull", url.Values{"name": {"repo-o-r"}}},
	} {
		if w := site.send(apitoken.Admin, s.path, s.form); w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "behind") {
			t.Errorf("%s while the clock is held: %d; want 503 clock_behind_database:\n%s", s.path, w.Code, w.Body)
		}
	}
	if _, err := site.st.ProjectDefinitions(t.Context(), "jd", 10); err == nil || len(subscriptionRecords(t, site)) != 0 {
		t.Error("a held add published or recorded")
	}
	if w := site.send(apitoken.Admin, "/subscriptions", nil); w.Code != http.StatusOK {
		t.Errorf("the list while the clock is held: %d", w.Code)
	}
}

// The subscriptions pull into the folder of every project: an admin of
// every project gets the page in the nav after Scripts; a session below
// admin and a user bound to projects are refused it and never offered it.
func TestOnlyAnAdminOfEveryProjectGetsTheSubscriptionsPage(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	for l, want := range map[string]string{"en": `id="nav-scripts">Scripts</a><a href="/subscriptions" id="nav-subscriptions">Subscriptions</a>`,
		"zh": `<a href="/subscriptions" id="nav-subscriptions">订阅管理</a>`} {
		if w := site.send(apitoken.Admin, "/runs?lang="+l, nil); !strings.Contains(w.Body.String(), want) {
			t.Errorf("an admin's %s nav lacks %s:\n%s", l, want, w.Body)
		}
	}
	for _, scope := range []apitoken.Scope{apitoken.Read, apitoken.Operate} {
		if w := site.send(scope, "/runs", nil); strings.Contains(w.Body.String(), `id="nav-subscriptions"`) {
			t.Errorf("a %s session's nav offers Subscriptions", scope)
		}
		if w := site.send(scope, "/subscriptions", nil); w.Code != http.StatusForbidden {
			t.Errorf("/subscriptions for a %s session: %d; want 403", scope, w.Code)
		}
	}
	bound := newScriptsSite(t)
	bound.c.cfg.Users = boundToAlpha{bound.st}
	owner := ownerSession(t, bound.batchSite, "root")
	if w := bound.sendAs(owner, "/subscriptions"); w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "is bound to the project alpha") {
		t.Errorf("/subscriptions for an owner bound to alpha: %d; want 403:\n%s", w.Code, w.Body)
	}
	if w := bound.sendAs(owner, "/runs"); strings.Contains(w.Body.String(), `id="nav-subscriptions"`) {
		t.Error("an owner bound to alpha is offered Subscriptions")
	}
}

// Where the commands run on the workers (a cluster replica) the page
// says a subscription there is a pull task pinned to a worker by labels,
// and offers no form; the nav does not offer it.
func TestWithoutAScriptsFolderTheSubscriptionsPageSaysTheyArePinnedPullTasks(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, canPublish)
	if w := site.send(apitoken.Admin, "/runs", nil); strings.Contains(w.Body.String(), `id="nav-subscriptions"`) {
		t.Error("the nav offers Subscriptions on a server without a folder")
	}
	for _, s := range []struct {
		path string
		form url.Values
	}{{"/subscriptions", nil}, {"/subscriptions/new", nil}, {"/subscriptions/new", subscriptionForm("jd", "https://github.com/o/r.git", "")}} {
		w := site.send(apitoken.Admin, s.path, s.form)
		if page := html.UnescapeString(w.Body.String()); w.Code != http.StatusOK || !strings.Contains(page, "pinned by placement labels to the worker") || strings.Contains(page, `id="sub-form"`) {
			t.Errorf("%s: %d; want the page saying subscriptions are pinned pull tasks:\n%s", s.path, w.Code, page)
		}
	}
	if _, err := site.st.ProjectDefinitions(t.Context(), "jd", 10); err == nil {
		t.Error("the form published on a server without a folder")
	}
}

// A ql repo line converted from the panel's crontab (Import crontab, `ql
// crontab convert`) is a subscription once applied: its task carries the
// labels, and the page lists it with its whitelist and blacklist.
func TestAConvertedQLRepoLineIsListedAsASubscription(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	res, err := crontab.Convert(strings.NewReader(`0 0 * * * ql repo https://github.com/Owner/Scripts.git "jd_|jx_" "backup" "" "main"`+"\n"), crontab.Options{Zone: "Asia/Shanghai"})
	if err != nil || len(res.Entries) != 1 {
		t.Fatalf("convert: %v %+v", err, res)
	}
	file, err := res.Definitions("jd", crontab.Server{Binary: "ql"})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := apply.Parse("jd.yaml", file)
	if err != nil {
		t.Fatalf("%v\n%s", err, file)
	}
	if _, err := apply.Apply(t.Context(), *site.c.cfg.Definitions, doc, ids.New); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(site.send(apitoken.Admin, "/subscriptions?lang=en", nil).Body.String())
	for _, want := range []string{`id="sub-repo-owner-scripts-main"`, "https://github.com/Owner/Scripts.git", "<code>main</code>", "<code>0 0 * * *</code>", "jd_|jx_", "backup", "Owner_Scripts_main"} {
		if !strings.Contains(page, want) {
			t.Errorf("the list lacks %q:\n%s", want, page)
		}
	}
}

// A task labelled subscription/url in its definitions file is a
// subscription too, listed without a schedule while it has no trigger
// of its name; deleting it creates none.
func TestAHandLabelledTaskWithoutATriggerIsASubscriptionPulledByNoSchedule(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	doc, err := apply.Parse("jd.yaml", []byte("project: jd\ntasks:\n  - name: repo-o-r\n    script: \"true\"\n    labels: {subscription/url: \"https://github.com/o/r.git\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := apply.Apply(t.Context(), *site.c.cfg.Definitions, doc, ids.New); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(site.send(apitoken.Admin, "/subscriptions?lang=en", nil).Body.String())
	if !strings.Contains(page, `id="sub-repo-o-r"`) || !strings.Contains(page, "no trigger: pulled by no schedule") || strings.Contains(page, `class="sub-pull"`) {
		t.Fatalf("the list:\n%s", page)
	}
	if w := site.do(apitoken.Admin, "/subscriptions/delete?lang=en", url.Values{"name": {"repo-o-r"}}); w.Code != http.StatusOK {
		t.Fatalf("the delete: %d\n%s", w.Code, w.Body)
	}
	if d := definitionsOf(t, site, "jd"); len(d.Triggers) != 0 || len(subscription.Of(d)) != 0 {
		t.Errorf("after the delete: %d triggers, %d subscriptions; want none", len(d.Triggers), len(subscription.Of(d)))
	}
}

// A task labelled subscription/url that a trigger of another name fires
// is listed as enabled, its schedule saying that its task's other
// triggers pull it, with no Pull now (which runs a trigger of its name);
// one of a disabled task reads as disabled.
func TestTheListShowsASubscriptionFiredByATriggerOfAnotherNameAsEnabled(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	doc, err := apply.Parse("jd.yaml", []byte(`project: jd
tasks:
  - name: repo-o-r
    script: "true"
    labels: {subscription/url: "https://github.com/o/r.git"}
  - name: repo-o-s
    script: "true"
    enabled: false
    labels: {subscription/url: "https://github.com/o/s.git"}
triggers:
  - {name: pull-r, task: repo-o-r, cron: "0 * * * *", timezone: UTC, misfire: skip}
  - {name: pull-s, task: repo-o-s, cron: "0 * * * *", timezone: UTC, misfire: skip, enabled: false}
`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := apply.Apply(t.Context(), *site.c.cfg.Definitions, doc, ids.New); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(site.send(apitoken.Admin, "/subscriptions?lang=en", nil).Body.String())
	r, s, _ := strings.Cut(page, `id="sub-repo-o-s"`)
	if !strings.Contains(r, `id="sub-repo-o-r"`) || !strings.Contains(r, "its task's other triggers pull it") || !strings.Contains(r, `class="sub-enabled">yes`) ||
		strings.Contains(r, `class="sub-pull"`) || !strings.Contains(s, `class="sub-enabled">no`) {
		t.Fatalf("the list:\n%s", page)
	}
}

// Two subscriptions never share a folder: one added, or edited, into the
// folder another pulls into (o/r on branch a and o/r_a both pull into
// o_r_a), or into one inside or around it (branch a/b's o_r_a/b), is
// refused naming the other; and the crontab converter leaves the second
// of the same two ql repo lines out, by the same rule, taking both lines
// exactly where the form takes both subscriptions.
func TestTwoSubscriptionsNeverShareAFolderByTheFormOrTheConverter(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	for _, c := range []struct {
		first, second [2]string
		other, folder string
		refused       bool
	}{
		{[2]string{"https://github.com/o1/r.git", "a"}, [2]string{"https://github.com/o1/r_a.git", ""}, "repo-o1-r-a", "o1_r_a", true},
		{[2]string{"https://github.com/o2/r.git", "a"}, [2]string{"https://github.com/o2/r.git", "a/b"}, "repo-o2-r-a", "o2_r_a", true},
		{[2]string{"https://github.com/o3/r.git", "a/b"}, [2]string{"https://github.com/o3/r.git", "a"}, "repo-o3-r-a-b", "o3_r_a/b", true},
		{[2]string{"https://github.com/o4/r.git", "a"}, [2]string{"https://github.com/o4/r.git", "ab"}, "", "", false},
		{[2]string{"https://github.com/o5/r.git", ""}, [2]string{"https://github.com/o5/r2.git", ""}, "", "", false},
	} {
		if w := site.do(apitoken.Admin, "/subscriptions/new", subscriptionForm("jd", c.first[0], c.first[1])); w.Code != http.StatusOK {
			t.Fatalf("%v: the first: %d\n%s", c.first, w.Code, w.Body)
		}
		w := site.do(apitoken.Admin, "/subscriptions/new?lang=en", subscriptionForm("shop", c.second[0], c.second[1]))
		page := html.UnescapeString(w.Body.String())
		want := "the subscription " + c.other + " (project jd) pulls into the folder " + c.folder + " already"
		if c.refused && (w.Code != http.StatusConflict || !strings.Contains(page, want)) {
			t.Errorf("%v after %v: %d, want 409 saying %q:\n%s", c.second, c.first, w.Code, want, page)
		}
		if !c.refused && w.Code != http.StatusOK {
			t.Errorf("%v after %v: %d, want it added:\n%s", c.second, c.first, w.Code, page)
		}
		lines := `0 0 * * * ql repo ` + c.first[0] + ` "" "" "" "` + c.first[1] + `"` + "\n" + `0 1 * * * ql repo ` + c.second[0] + ` "" "" "" "` + c.second[1] + `"` + "\n"
		res, err := crontab.Convert(strings.NewReader(lines), crontab.Options{Zone: "Asia/Shanghai"})
		if err != nil {
			t.Fatal(err)
		}
		repeated := false
		for _, p := range res.Problems {
			repeated = repeated || (p.Code == crontab.CodeRepoRepeated && p.Params["name"] == c.other && p.Params["other"] == c.folder)
		}
		if repeated != c.refused || len(res.Entries) != map[bool]int{true: 1, false: 2}[c.refused] {
			t.Errorf("%v after %v: the converter made %d tasks, problems %+v; want it to agree with the form (refused %v)", c.second, c.first, len(res.Entries), res.Problems, c.refused)
		}
	}
	if d := definitionsOf(t, site, "shop"); len(subscription.Of(d)) != 2 {
		t.Errorf("shop has %+v; want only the two subscriptions of folders of their own", subscription.Of(d))
	}
	// An edit into another's folder: o6/r+a (o6_r+a) edited to o6/r on
	// branch a keeps its name repo-o6-r-a, and its folder o6_r_a would
	// hold o6/r on branch a/b's o6_r_a/b.
	for _, f := range [][2]string{{"https://github.com/o6/r+a.git", ""}, {"https://github.com/o6/r.git", "a/b"}} {
		if w := site.do(apitoken.Admin, "/subscriptions/new", subscriptionForm("jd", f[0], f[1])); w.Code != http.StatusOK {
			t.Fatalf("%v: %d\n%s", f, w.Code, w.Body)
		}
	}
	edit := subscriptionForm("jd", "https://github.com/o6/r.git", "a")
	edit.Set("name", "repo-o6-r-a")
	w := site.do(apitoken.Admin, "/subscriptions/edit?lang=en", edit)
	if page := html.UnescapeString(w.Body.String()); w.Code != http.StatusConflict || !strings.Contains(page, "the subscription repo-o6-r-a-b (project jd) pulls into the folder o6_r_a/b already, and this one would pull into o6_r_a") {
		t.Errorf("the edit into o6_r_a: %d, want 409 naming repo-o6-r-a-b:\n%s", w.Code, page)
	}
	if sub, _ := subscription.Named(subscription.Of(definitionsOf(t, site, "jd")), "repo-o6-r-a"); sub.Folder != "o6_r+a" {
		t.Errorf("after the refused edit the subscription pulls into %q; want o6_r+a still", sub.Folder)
	}
}

// The page writes the text-direction characters of what it reads from a
// subscription's task labels (a converted crontab's or a definitions
// file's URL, branch, expressions, and the folder made of them) as
// \u202e escapes, as the Scripts page writes a script's name, so that a
// U+202E cannot reorder a row into another URL or folder.
func TestTheSubscriptionsPageShowsTextDirectionCharactersAsEscapes(t *testing.T) {
	t.Parallel()
	site := newScriptsSite(t)
	doc, err := apply.Parse("jd.yaml", []byte("project: jd\ntasks:\n  - name: repo-o-r\n    script: \"true\"\n"+
		"    labels: {subscription/url: \"https://github.com/o/r\\u202Egpj.exe.git\", subscription/branch: \"m\\u2066ain\", subscription/match: \"jd\\u202D_\", subscription/exclude: \"b\\u200Fak\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := apply.Apply(t.Context(), *site.c.cfg.Definitions, doc, ids.New); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(site.send(apitoken.Admin, "/subscriptions?lang=en", nil).Body.String())
	for _, want := range []string{`https://github.com/o/r\u202egpj.exe.git`, `<code>m\u2066ain</code>`, `<code>jd\u202d_</code>`, `<code>b\u200fak</code>`, `<code>o_r\u202egpj.exe_m\u2066ain</code>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the list lacks %s", want)
		}
	}
	if strings.ContainsFunc(page, validate.IsBidiControl) {
		t.Errorf("the list holds a text-direction character:\n%s", page)
	}
	confirm := html.UnescapeString(site.send(apitoken.Admin, "/subscriptions/delete?name=repo-o-r&lang=en", nil).Body.String())
	if !strings.Contains(confirm, `o_r\u202egpj.exe_m\u2066ain`) || strings.ContainsFunc(confirm, validate.IsBidiControl) {
		t.Errorf("the delete's confirm shows the folder unescaped:\n%s", confirm)
	}
}
