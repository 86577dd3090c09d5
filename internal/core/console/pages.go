package console

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/core/triggerref"
	"github.com/qinglong/qinglong/internal/core/view"
)

// Page sizes: the runs list, the runs the overview counts, the triggers
// one read of the store lists, the triggers a page of the triggers list
// shows, the ledger entries a trigger's page shows, and the next fires
// and failures the overview lists.
const (
	runsPage            = 50
	overviewRuns        = 500
	triggersPage        = 500
	triggersShown       = 100
	ledgerEntries       = 50
	nextFires           = 10
	recentFailuresShown = 10
)

// page is what every signed-in template receives.
type page struct {
	Lang, CSRF, Token string
	// Walled: the user is kept at the two-step wall (atWall), and the
	// header offers only the account page and sign-out.
	Walled bool
	// LangEN and LangZH are this page in either language: its address
	// with ?lang= set (a page answering a form links to where the form
	// was, since a form's answer cannot be fetched again).
	LangEN, LangZH string
	// Theme is the colours chosen on the header's switch ("light",
	// "dark"; "" follows the system's), and Themes the switch's links.
	Theme  string
	Themes []themeLink
	// Zone is the viewer's zone ("" for UTC): viewerZones.
	Zone string
	// ZoneRefused is a zone asked for (?tz=, the tz cookie) that this
	// server does not know, and ZoneRefusal the page's sentence saying so
	// and that the times stay in Zone.
	ZoneRefused, ZoneRefusal string
	CanOperate               bool
	CanAdmin                 bool
	// CanEnable: the token is admin and the server can publish (enable.go).
	CanEnable bool
	// ShowTokens offers the tokens page: an admin session on a server
	// that can manage tokens.
	ShowTokens bool
	// ShowWorkers offers the workers page (the cluster).
	ShowWorkers bool
	// ShowSecrets offers the secrets page: an admin session on a server
	// that holds the secrets file of the machine running the commands.
	ShowSecrets bool
	// ShowScripts offers the Scripts page: an admin session on a server
	// that holds the scripts folder of the machine running the commands.
	ShowScripts bool
	// ShowSubscriptions offers the Subscriptions page, on the same terms
	// as the Scripts page, where the server may also publish the
	// subscriptions' tasks.
	ShowSubscriptions bool
	// ShowDependencies offers the Dependencies page, as ShowScripts the
	// Scripts page.
	ShowDependencies bool
	// ShowAudit offers the audit page: an admin session (an owner) on a
	// server that can read the trail.
	ShowAudit bool
	// ShowBackup offers the Backup page: an admin session of every
	// project on a server that keeps its data directory.
	ShowBackup bool
	// ShowNotifications offers the notifications page: a server with an
	// outbox to read.
	ShowNotifications bool
	// Held is, while the server holds every write, the refusal a form
	// would get, shown above every page: its pages still show what it
	// holds, and a user should not have to submit a form to learn that
	// none would be taken.
	Held string
	// Flash says what the form that led here did (flash.go).
	Flash string
	Data  any
}

func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, name string, s *session, data any) {
	p := c.pageOf(r, s, data)
	var buf bytes.Buffer
	if err := c.tmpl[name].ExecuteTemplate(&buf, "layout", p); err != nil {
		c.cfg.Log.Error("console: render", "code", CodeRenderFailed, "page", name, "err", err)
		http.Error(w, tr(lang(r), "err.render"), http.StatusInternalServerError)
		return
	}
	if q := r.URL.Query().Get("lang"); q != "" {
		http.SetCookie(w, c.cookie(langCookie, p.Lang, "/", 365*24*3600))
	}
	if chosen := r.URL.Query().Get("theme"); themeNames[chosen] {
		http.SetCookie(w, c.cookie(themeCookie, chosen, "/", 365*24*3600))
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes()) // the browser went away; nothing to do
}

// pageOf is the page r shows s with data: its language, the viewer's
// zone, what the session may do and see. A part of a page sent later
// (the attempts of a Run's live log) is rendered with it too, so it reads
// as the page around it.
func (c *Console) pageOf(r *http.Request, s *session, data any) page {
	p := page{Lang: lang(r), Data: data}
	if f := flashOf(r); f != nil {
		p.Flash = f.Message
	}
	if p.Zone, p.ZoneRefused = viewerZones(r); p.ZoneRefused != "" {
		p.ZoneRefusal = zoneRefusal(p.Lang, p.ZoneRefused, p.Zone)
	}
	p.LangEN, p.LangZH = langHref(r, "en"), langHref(r, "zh")
	p.Theme, p.Themes = themesOf(r)
	if err := hold.Held(c.cfg.Writes); err != nil {
		p.Held = c.errorText(p.Lang, err)
	}
	if s != nil {
		p.CSRF, p.Token, p.CanOperate, p.CanAdmin = s.csrf, s.name, s.scope.Allows(apitoken.Operate), s.scope.Allows(apitoken.Admin)
		p.Walled = atWall(r.Context())
		p.CanEnable = c.cfg.Enabler != nil && s.scope.Allows(apitoken.Admin)
		p.ShowTokens = s.scope.Allows(apitoken.Admin) && c.cfg.TokenAdmin != nil
		p.ShowWorkers = c.cfg.Workers != nil
		p.ShowSecrets = s.scope.Allows(apitoken.Admin) && c.cfg.Secrets != nil
		// A user bound to projects is refused the page (adminOfEveryProject):
		// the folder is every project's.
		p.ShowScripts = s.scope.Allows(apitoken.Admin) && c.cfg.Scripts != nil && boundOf(r.Context()).in() == nil
		p.ShowSubscriptions = p.ShowScripts && c.subscriptionsHere()
		p.ShowDependencies = s.scope.Allows(apitoken.Admin) && c.cfg.Dependencies != nil && boundOf(r.Context()).in() == nil
		p.ShowNotifications = c.cfg.Notifications != nil
		p.ShowAudit = s.scope.Allows(apitoken.Admin) && c.cfg.Audit != nil
		p.ShowBackup = s.scope.Allows(apitoken.Admin) && c.cfg.Backup != nil && len(boundOf(r.Context()).projects) == 0
	}
	return p
}

// langHref is the address of the request's page in language l.
func langHref(r *http.Request, l string) string { return switchHref(r, "lang", l) }

// switchHref is the address of the request's page with the header's
// switch key (lang, theme) set to v: the same page and query for a GET,
// else the trigger's page for a form about one trigger (its backfill's
// preview and result), else the page of the form's first path segment
// (/definitions for /definitions/preview, /tokens for a token just
// created).
func switchHref(r *http.Request, key, v string) string {
	// At the two-step wall every other page sends the user back to the
	// account page, which would drop the switch on the way.
	if atWall(r.Context()) && r.URL.Path != "/account" && !strings.HasPrefix(r.URL.Path, "/account/") {
		return "/account?" + key + "=" + v
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if r.URL.Path == "/definitions/new" {
			// The form again, empty: what was typed is not in the address.
			return r.URL.Path + "?" + key + "=" + v
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if id := r.PathValue("id"); first == "triggers" && id != "" {
			return "/triggers/" + url.PathEscape(id) + "?" + key + "=" + v
		}
		return "/" + first + "?" + key + "=" + v
	}
	q := r.URL.Query()
	q.Set(key, v)
	// The flash was shown once, in the page's language: this is the page.
	q.Del(flashParam)
	return r.URL.Path + "?" + q.Encode()
}

// errorData is what the error page shows: a title by status, the message
// (what was wrong and what to do), and the way back.
type errorData struct {
	Title, Message, Back string
	// Said is the message made HTML already, for one that holds a time
	// (kept whole, unbroken); the page shows it in place of Message.
	Said   template.HTML
	SignIn bool
}

// fail answers an error as a page in the console's layout and language,
// with the status its code gives and a link back to the page the request
// came from.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, s *session, err error) {
	retryAfter(w, err)
	status, msg := c.failure(r, err)
	c.failWith(w, r, s, status, msg)
}

// retryAfter sends err's Retry-After, when it names one (a write held
// for a while, hold.RetryAfter), with the page that refuses it.
func retryAfter(w http.ResponseWriter, err error) {
	if retry := hold.RetryAfter(err); retry != "" {
		w.Header().Set("Retry-After", retry)
	}
}

// failure is the status and the words, in the request's language, that
// answer err: what fail shows as a page, and a batch as one trigger's
// outcome. A fault of the server's own is logged and said in general
// words.
func (c *Console) failure(r *http.Request, err error) (int, string) {
	if outOfTime(r, err) {
		msg := fmt.Sprintf(tr(lang(r), "err.timeout"), c.cfg.RequestTimeout)
		// Waiting for another process's lock, the page could not have
		// asked for less: it says what held it instead.
		if qlerror.ReasonOf(err) == hold.RefusalDatabaseLocked {
			msg = c.errorText(lang(r), err)
		}
		return http.StatusGatewayTimeout, msg
	}
	status := statusOf(err)
	msg := c.errorText(lang(r), err)
	if status == http.StatusInternalServerError {
		c.cfg.Log.Error("console", "code", CodeInternalError, "err", err)
		msg = tr(lang(r), "err.internal")
	}
	return status, msg
}

// outOfTime reports whether err failed a request because its store calls
// ran out of the request's time limit: the store said so (Timeout), or
// the limit has passed and the store failed in its own way (SQLite gives
// the bare context error, or "interrupted", or a lock it stopped waiting
// for). That is neither the user's mistake nor a broken server: the page
// says to try again, or ask for less. A browser that went away cancels
// the request instead, and is answered nothing new.
func outOfTime(r *http.Request, err error) bool {
	return qlerror.Is(err, qlerror.Timeout) || (statusOf(err) >= http.StatusInternalServerError && errors.Is(r.Context().Err(), context.DeadlineExceeded))
}

// statusOf is the HTTP status of an error by its code.
func statusOf(err error) int {
	switch qlerror.CodeOf(err) {
	case qlerror.NotFound:
		return http.StatusNotFound
	case qlerror.Invalid:
		return http.StatusBadRequest
	case qlerror.FailedPrecondition, qlerror.Conflict, qlerror.MutationDrift:
		// MutationDrift: the same change id sent again with other
		// content, which its message explains; the API answers it 409 too.
		return http.StatusConflict
	case qlerror.PermissionDenied:
		// What this server's database role may not do (a cluster
		// replica's runtime role), whose message names where it can be
		// done: no fault of the server's to hide behind a 500.
		return http.StatusForbidden
	case qlerror.Unavailable:
		return http.StatusServiceUnavailable
	case qlerror.Timeout:
		return http.StatusGatewayTimeout
	}
	return http.StatusInternalServerError
}

// failWith answers status with msg as the error page, its commands named
// with this console's binary.
func (c *Console) failWith(w http.ResponseWriter, r *http.Request, s *session, status int, msg string) {
	c.renderError(w, r, s, status, errorData{Message: c.named(msg)})
}

// failWithHTML is failWith of a message made HTML already, its commands
// named with this console's binary before any value was put in it.
func (c *Console) failWithHTML(w http.ResponseWriter, r *http.Request, s *session, status int, msg template.HTML) {
	c.renderError(w, r, s, status, errorData{Said: msg})
}

// renderError answers d, a message, as the error page of status, its
// header the wall's for a user kept at the two-step wall (wallAsked).
func (c *Console) renderError(w http.ResponseWriter, r *http.Request, s *session, status int, d errorData) {
	r = c.wallAsked(r, s)
	d.Title, d.Back, d.SignIn = "err."+strconv.Itoa(status), backHref(r), status == http.StatusUnauthorized
	if _, known := messages["en"][d.Title]; !known {
		d.Title = "err.500"
	}
	c.render(w, r, status, "error", s, d)
}

// backHref is where the error page's Back link goes: the page the request
// came from when it is this console's (the Referer's path and query),
// else the overview.
func backHref(r *http.Request) string {
	u, err := url.Parse(r.Referer())
	if err != nil || u.Host != r.Host || u.Path == "" || !strings.HasPrefix(u.Path, "/") {
		return "/"
	}
	return u.RequestURI()
}

type overviewData struct {
	ByState  []stateCount
	Counted  int
	Failures []run.Run
	Next     []schedule.TriggerStatus
	// Unknown are the active triggers left out of Next because their
	// stored cron does not parse here (a zone the zone database of this
	// host lacks): their cursors are no fire this server will make.
	Unknown  []schedule.TriggerStatus
	Lag      *lag
	Backlog  *backlog
	Fleet    *fleet
	Replicas *replicaSet
	// Dead counts the notifications that could not be delivered: nobody
	// was told of those failures.
	Dead *deadCount
	// NoTriggers tells a server that has no trigger yet, whose overview
	// says so and, where it can publish, leads to New task: a new user
	// lands here after the first sign-in.
	NoTriggers, CanCreate bool
}

type stateCount struct {
	State run.State
	N     int
}

// overview counts the states of the runs created in the last 24 hours
// among the newest overviewRuns, lists the newest failures and the next
// fires.
func (c *Console) overview(w http.ResponseWriter, r *http.Request, s *session) {
	ctx := r.Context()
	recent, _, err := c.cfg.Runs.RunList(ctx, run.ListParams{Limit: overviewRuns, InProjects: boundOf(ctx).in()})
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	since := c.cfg.NowMs() - (24 * time.Hour).Milliseconds()
	counts := map[run.State]int{}
	d := overviewData{}
	for _, x := range recent {
		if x.CreatedAtMs >= since {
			counts[x.State]++
			d.Counted++
		}
	}
	for st, n := range counts {
		d.ByState = append(d.ByState, stateCount{st, n})
	}
	slices.SortFunc(d.ByState, func(a, b stateCount) int { return cmp.Compare(a.State, b.State) })
	d.Lag, d.Backlog, d.Fleet = admissionLag(recent, since, c.cfg.MisfireGrace.Milliseconds()), c.backlog(ctx), c.fleet(ctx)
	d.Replicas = c.replicas(ctx)
	if d.Failures, err = c.recentFailures(ctx); err != nil {
		c.fail(w, r, s, err)
		return
	}
	if d.Dead, err = c.deadNotifications(ctx); err != nil {
		c.fail(w, r, s, err)
		return
	}
	pages := func(after string) ([]schedule.TriggerStatus, string, error) {
		return c.cfg.Triggers.TriggerList(ctx, schedule.TriggerListParams{Limit: triggersPage, After: after, InProjects: boundOf(ctx).in()})
	}
	var listed int
	if d.Next, d.Unknown, listed, err = soonestFires(ctx, pages); err != nil {
		c.fail(w, r, s, err)
		return
	}
	d.NoTriggers, d.CanCreate = listed == 0, c.cfg.Definitions != nil
	c.render(w, r, http.StatusOK, "overview", s, d)
}

// soonestFires is nextFiresOf over every trigger, read a page at a time
// from pages (a listing after a cursor, "" from the first), keeping the
// soonest of the pages read so far: on a server of more triggers than a
// page holds, a trigger past the first page (by project and name) fires
// as soon as any. listed is how many triggers the pages held.
func soonestFires(ctx context.Context, pages func(after string) ([]schedule.TriggerStatus, string, error)) (next, unknown []schedule.TriggerStatus, listed int, err error) {
	after := ""
	for {
		if err := ctx.Err(); err != nil {
			return nil, nil, 0, err
		}
		page, cursor, err := pages(after)
		if err != nil {
			return nil, nil, 0, err
		}
		listed += len(page)
		n, u := nextFiresOf(slices.Concat(next, page))
		next, unknown = n, append(unknown, u...)
		if cursor == "" {
			return next, unknown, listed, nil
		}
		after = cursor
	}
}

// nextFiresOf are the triggers whose next occurrences are admitted
// soonest, at most nextFires of them, by due time: with jitter, an
// occurrence nominally later may be admitted first. A paused or disabled
// trigger's cursor is a time that passes without a Run: it has no next
// fire to list. Nor has an active trigger whose stored cron does not
// parse here (a zone the zone database of this host lacks): its cursor,
// left by a server that knew the zone, is no fire this one's scheduler
// can decide, so it is among unknown instead, which the page names.
func nextFiresOf(list []schedule.TriggerStatus) (next, unknown []schedule.TriggerStatus) {
	var out []schedule.TriggerStatus
	for _, t := range list {
		if !t.Enabled || t.Paused || t.Archived {
			continue
		}
		if schedule.CheckStoredCron(t.TriggerID, t.Cron) != nil {
			unknown = append(unknown, t)
			continue
		}
		if t.NextFireAtMs != nil {
			out = append(out, t)
		}
	}
	dueAt := func(t schedule.TriggerStatus) int64 {
		if t.NextDueAtMs != nil {
			return *t.NextDueAtMs
		}
		return *t.NextFireAtMs
	}
	slices.SortFunc(out, func(a, b schedule.TriggerStatus) int { return cmp.Compare(dueAt(a), dueAt(b)) })
	return out[:min(len(out), nextFires)], unknown
}

// failedStates are the states of a Run whose task did not do its job: a
// cancelled one was stopped on purpose.
var failedStates = []run.State{run.Failed, run.TimedOut, run.Lost}

// recentFailures are the newest recentFailuresShown Runs in a failed
// state, newest first.
func (c *Console) recentFailures(ctx context.Context) ([]run.Run, error) {
	var lists [][]run.Run
	for _, st := range failedStates {
		list, _, err := c.cfg.Runs.RunList(ctx, run.ListParams{State: st, Limit: recentFailuresShown, InProjects: boundOf(ctx).in()})
		if err != nil {
			return nil, err
		}
		lists = append(lists, list)
	}
	return newestRuns(recentFailuresShown, lists...), nil
}

// newestRuns merges listings of Runs, each newest first, into the newest n:
// a Run's id is time-ordered, as every listing's order is.
func newestRuns(n int, lists ...[]run.Run) []run.Run {
	all := slices.Concat(lists...)
	slices.SortFunc(all, func(a, b run.Run) int { return cmp.Compare(b.ID, a.ID) })
	return all[:min(n, len(all))]
}

// triggerFilters are the triggers list's filters and page, which an
// enable or disable form on the list carries back to it.
var triggerFilters = []string{"project", "q", "page"}

// triggers lists the triggers of a project (chosen by name) or of every
// project, a page (?page=, triggerPage) at a time, those whose names or titles hold the
// search's words. A project no one has is answered on the page itself, beside the
// filters.
func (c *Console) triggers(w http.ResponseWriter, r *http.Request, s *session) {
	c.triggersList(w, r, s, http.StatusOK, projectPauseForm{})
}

// triggersList is the triggers list answered with status, its project
// pause form as pf holds it (a refused note kept with its error).
func (c *Console) triggersList(w http.ResponseWriter, r *http.Request, s *session, status int, pf projectPauseForm) {
	// The store searches, ignoring case, before it cuts the page, so a
	// match past the first page of every trigger is listed all the same.
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	projects, err := c.projectChoices(r.Context())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	// The list's filters as the address gives them, which an enable or
	// disable form carries back to this list.
	f := map[string]string{}
	for _, k := range triggerFilters {
		f[k] = r.URL.Query().Get(k)
	}
	// The batch form's request id is its own, so a Run it makes is never
	// taken for the one a row's Run now made from the same page.
	data := map[string]any{"Q": q, "Project": r.URL.Query().Get("project"), "Projects": projects, "Request": randomID(), "F": f,
		"Batch": c.batchOffer(s), "BatchRequest": randomID(), "MaxNote": schedule.MaxPauseNote,
		// A paused row offers Resume as the trigger's page does.
		"CanPause": c.cfg.Pauser != nil, "CanPauseProject": c.cfg.ProjectPauser != nil && c.cfg.ProjectPauses != nil, "ProjectDone": projectDone(r), "ProjectForm": pf,
		"CanDeleteProject": c.cfg.ProjectDeleter != nil, "ProjectDeleted": projectDeleted(r)}
	pick, redirect, err := c.pickProject(r)
	if redirect != "" {
		http.Redirect(w, r, redirect, http.StatusFound)
		return
	}
	var list []schedule.TriggerStatus
	var at triggersAt
	if err == nil {
		data["Project"], data["Projects"] = pick.Name, withChosen(projects, pick.named())
		// Filtered by one project, the list is that project's page and
		// heads with its title and name.
		if pick.ID != "" {
			data["Heading"], data["ProjectArchived"], data["ProjectEnv"] = pick.named(), pick.Archived, pick.Env
			// The env's own form where this server publishes; the
			// project's file (to apply elsewhere) where it cannot.
			data["CanEditEnv"] = c.cfg.Definitions != nil && c.cfg.Export != nil
		}
		// An archived project runs nothing: its cap holds nothing back.
		if pick.ID != "" && !pick.Archived {
			data["Cap"], err = c.capOf(r.Context(), pick.ID, pick.MaxRunning)
		}
		if err == nil && pick.ID != "" && c.cfg.ProjectPauses != nil {
			var st schedule.ProjectPauseState
			st, err = c.cfg.ProjectPauses.ProjectPauseRead(r.Context(), pick.ID)
			if err == nil {
				data["ProjectPause"] = &st
			}
			// An unknown project (a server that cannot read projects
			// passes the filter on as typed) lists no trigger: there is
			// nothing to pause.
			if qlerror.Is(err, qlerror.NotFound) {
				err = nil
			}
		}
	}
	if err == nil {
		list, at, err = c.triggerPage(r.Context(), schedule.TriggerListParams{ProjectID: pick.ID, Search: q, InProjects: boundOf(r.Context()).in()}, pageNumber(r.URL.Query().Get("page")))
	}
	if err != nil {
		if qlerror.CodeOf(err) != qlerror.Invalid {
			c.fail(w, r, s, err)
			return
		}
		data["Error"] = c.errorText(lang(r), err)
		c.render(w, r, http.StatusBadRequest, "triggers", s, data)
		return
	}
	fires := make(map[string][]view.FireTime, len(list))
	now := c.cfg.NowMs()
	for _, t := range list {
		fires[t.TriggerID] = upcoming(t, now)
	}
	data["At"], data["PrevURL"], data["NextURL"] = at, at.href(at.Page-1, pick.Name, q), at.href(at.Page+1, pick.Name, q)
	data["List"], data["Fires"] = list, fires
	if data["Done"], err = c.triggerDone(r); err != nil {
		c.fail(w, r, s, err)
		return
	}
	if c.cfg.LastRuns != nil && len(list) > 0 {
		last, err := c.cfg.LastRuns.RunsLast(r.Context(), view.TriggerIDs(list))
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		boundLast(r.Context(), last)
		warnings := map[string][]warningLine{}
		for _, t := range list {
			warnings[t.TriggerID] = warningLines(lang(r), view.NewCron(t.Cron), last[t.TriggerID])
		}
		data["Last"], data["HasLast"], data["Warnings"] = last, true, warnings
	}
	c.render(w, r, status, "triggers", s, data)
}

// doneNotice is what a row's button of the triggers list just did: the
// key of its sentence and the trigger, named as the list names it.
type doneNotice struct{ Key, Trigger string }

// triggerDone is the notice of what a row's button just did (?done= and
// ?done_id=, listDone); nil when the address asks for none, or when the
// trigger is no longer as the action left it (another change since), so
// that the notice never says what is not so.
func (c *Console) triggerDone(r *http.Request) (*doneNotice, error) {
	action, id := r.URL.Query().Get("done"), r.URL.Query().Get("done_id")
	if action == "" || id == "" {
		return nil, nil
	}
	d, err := c.cfg.Detail.TriggerDetail(r.Context(), id, 1)
	if qlerror.Is(err, qlerror.NotFound) || qlerror.CodeOf(err) == qlerror.Invalid {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if now, ok := map[string]bool{"pause": d.Paused, "resume": !d.Paused, "enable": d.Enabled, "disable": !d.Enabled}[action]; !ok || !now {
		return nil, nil
	}
	return &doneNotice{Key: "trig.done." + action, Trigger: d.ProjectName + "/" + d.Name}, nil
}

func (c *Console) triggerDetail(w http.ResponseWriter, r *http.Request, s *session) {
	c.showTrigger(w, r, s, http.StatusOK, pauseForm{})
}

// pauseForm is a trigger's pause form as a refusal shows it again: the
// note typed, and the error beside it.
type pauseForm struct{ Note, Error string }

// showTrigger is the page of the trigger in the address answered with
// status, its pause form as pf holds it.
func (c *Console) showTrigger(w http.ResponseWriter, r *http.Request, s *session, status int, pf pauseForm) {
	id := r.PathValue("id")
	d, err := c.cfg.Detail.TriggerDetail(r.Context(), id, view.DetailLedgerRead(ledgerEntries))
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	// The entry read past ledgerEntries only says older ones exist, so
	// that the page does not pass its newest entries off as the ledger.
	ledgerMore := len(d.Ledger) > ledgerEntries
	d.Ledger = d.Ledger[:min(len(d.Ledger), ledgerEntries)]
	// Likewise the audit record read past schedule.AuditShown.
	auditMore := len(d.Audit) > schedule.AuditShown
	d.Audit = d.Audit[:min(len(d.Audit), schedule.AuditShown)]
	runs, _, err := c.cfg.Runs.RunList(r.Context(), run.ListParams{TriggerID: id, Limit: ledgerEntries})
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	var warnings []warningLine
	if c.cfg.LastRuns != nil {
		last, err := c.cfg.LastRuns.RunsLast(r.Context(), []string{d.TriggerID})
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		boundLast(r.Context(), last)
		warnings = warningLines(lang(r), view.NewCron(d.Cron), last[d.TriggerID])
	}
	c.render(w, r, status, "trigger", s, map[string]any{"T": d, "Cron": view.NewCron(d.Cron), "Warnings": warnings, "Timeline": timeline(d.Ledger, runs, d.Cron, d.Revision), "CanPause": c.cfg.Pauser != nil, "CanRun": c.cfg.Manual != nil, "PauseForm": pf,
		"Fires": upcoming(d.TriggerStatus, d.NowMs), "ZoneUnknown": storedZoneUnknown(d.TriggerStatus), "Request": randomID(), "MaxNote": schedule.MaxPauseNote,
		"LedgerMore": ledgerMore, "LedgerShown": len(d.Ledger), "LedgerAll": view.MaxLedgerShown, "AuditMore": auditMore, "Backfill": newBackfillForm(r, s, d.TriggerStatus, d.NowMs),
		// The edit forms publish definitions, as New task does.
		"CanEdit": c.cfg.Definitions != nil && c.cfg.Export != nil && s.scope.Allows(apitoken.Admin)})
}

// entry is one row of a trigger's timeline: a Run or an occurrence passed
// over with its reason. Why is the reason's word key under "passed".
type entry struct {
	AtMs   int64
	Run    *run.Run
	Passed *schedule.LedgerEntry
	Why    string
}

// timeline merges a trigger's runs and ledger, newest first. cron and
// revision are the trigger's current ones, which say what its collapses did.
func timeline(ledger []schedule.LedgerEntry, runs []run.Run, cron trigger.Cron, revision int64) []entry {
	out := make([]entry, 0, len(ledger)+len(runs))
	for i := range runs {
		out = append(out, entry{AtMs: runs[i].ScheduledForMs, Run: &runs[i]})
	}
	for i := range ledger {
		out = append(out, entry{AtMs: ledger[i].LastMs, Passed: &ledger[i], Why: passedWhy(ledger[i], cron, revision)})
	}
	slices.SortStableFunc(out, func(a, b entry) int { return cmp.Compare(b.AtMs, a.AtMs) })
	return out
}

// passedWhy is the word key of why e's occurrences were passed over. A
// collapse is said by the misfire policy that made it, which decided which
// occurrence got the Run: the oldest missed one (fire_once), the oldest
// inside the catch-up window (fire_once with one) or the oldest inside the
// grace (skip). Only the current revision's policy is known here, so an
// entry of an older revision (or a compacted total, which may span
// several) gets the words that name no policy.
func passedWhy(e schedule.LedgerEntry, cron trigger.Cron, revision int64) string {
	if e.Reason != schedule.PassCollapsed || e.Compacted || e.TriggerRevision != revision {
		return string(e.Reason)
	}
	switch {
	case cron.MisfirePolicy == trigger.Skip:
		return "collapsed.skip"
	case cron.HasCatchUpWindow:
		return "collapsed.fire_once_window"
	case cron.MisfirePolicy == trigger.FireOnce:
		return "collapsed.fire_once"
	}
	return string(e.Reason)
}

// pause pauses or resumes a trigger. It answers with the page the form
// was on: the triggers list when it says so (a paused row's Resume),
// filtered and paged as the form carries it with what was done
// (listDone), else the trigger's page. A note refused (too long, not one
// line of text) is answered with the trigger's page again, its form
// holding what was typed and saying what is wrong with it.
func (c *Console) pause(pause bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, s *session) {
		if c.cfg.Pauser == nil {
			c.fail(w, r, s, cannotPause())
			return
		}
		id := r.PathValue("id")
		_, err := c.pauseOne(r, s, id, pause)
		if isNoteRefusal(err) {
			c.showTrigger(w, r, s, statusOf(err), pauseForm{Note: r.PostFormValue("note"), Error: c.formError(lang(r), err)})
			return
		}
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		action := map[bool]string{true: "pause", false: "resume"}[pause]
		if r.PostFormValue("back") == "list" {
			http.Redirect(w, r, listDone(r, action, id), http.StatusSeeOther)
			return
		}
		back := "/triggers/" + url.PathEscape(id)
		d, err := c.cfg.Detail.TriggerDetail(r.Context(), id, 1)
		if err != nil {
			// Done all the same: the trigger's page says its state.
			http.Redirect(w, r, back, http.StatusSeeOther)
			return
		}
		done := fmt.Sprintf(tr(lang(r), "trig.done."+action), d.ProjectName+"/"+d.Name) + queuedText(lang(r), c.queuedAtPause(r, pause, run.ListParams{TriggerID: id}))
		c.redirectWith(w, r, s, back, flash{Message: done})
	}
}

// pauseOne pauses or resumes trigger id with the form's note (a resume's
// is optional too, and kept with its audit record), audited with the
// session's actor: the trigger page's form and the list's batch both act
// through it.
func (c *Console) pauseOne(r *http.Request, s *session, id string, pause bool) (schedule.PauseResult, error) {
	note := strings.TrimSpace(r.PostFormValue("note"))
	return c.cfg.Pauser.TriggerPause(r.Context(), schedule.PauseRequest{TriggerID: id, Pause: pause, Note: note, Actor: s.actor(r)})
}

// isNoteRefusal reports whether err refuses a pause's note, which the
// form that sent it mends: the page shows the form again with the note.
func isNoteRefusal(err error) bool {
	r := qlerror.ReasonOf(err)
	return r == schedule.RefusalPauseNoteTooLong || r == schedule.RefusalPauseNoteNotText
}

func (c *Console) runNow(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Manual == nil {
		c.fail(w, r, s, cannotRunNow())
		return
	}
	id := r.PathValue("id")
	c.admitAndShow(w, r, s, "err.overlap",
		func(reqID string) (schedule.RunNowResult, error) { return c.runNowOne(r, s, id, reqID) })
}

// cannotPause refuses a pause or resume on a server that cannot.
func cannotPause() error {
	return qlerror.New(qlerror.FailedPrecondition, "this server cannot pause or resume triggers; use `ql triggers pause|resume`").Because(refusalCannotPause)
}

// cannotRunNow refuses a run now on a server whose store cannot.
func cannotRunNow() error {
	return qlerror.New(qlerror.FailedPrecondition, "this server's store cannot run triggers now").Because(refusalCannotRunNow)
}

// runNowOne asks for a manual Run of trigger id keyed on reqID, under the
// trigger's overlap policy unless the form forces it, a refusal of a
// disabled or stale trigger worded with what mends it: the trigger
// page's form, the list's and the list's batch all run through it.
func (c *Console) runNowOne(r *http.Request, s *session, id, reqID string) (schedule.RunNowResult, error) {
	res, err := c.cfg.Manual.TriggerRunNow(r.Context(), schedule.RunNowRequest{TriggerID: id, RequestID: reqID, Force: r.PostFormValue("force") == "1", Actor: s.actor(r)})
	if reason := qlerror.ReasonOf(err); reason == schedule.RefusalTriggerDisabled || reason == schedule.RefusalStalePin || reason == schedule.RefusalRepublishing {
		if t, derr := c.cfg.Detail.TriggerDetail(r.Context(), id, 1); derr == nil {
			err = c.pinRefusal(r.Context(), t.TriggerStatus, c.disabledRefusal(t.TriggerStatus, err))
		}
	}
	return res, err
}

// disabledRefusal is err, when it refuses trigger t as disabled and t
// itself is (not only its task), with the command that enables it naming
// t by its project and name and reaching this server's database, as the
// page's other commands do: the store's refusal knows neither and names
// t by its id, which the page does not show. Any other error is returned
// as it is.
func (c *Console) disabledRefusal(t schedule.TriggerStatus, err error) error {
	if qlerror.ReasonOf(err) != schedule.RefusalTriggerDisabled || t.Enabled {
		return err
	}
	enable := "ql triggers enable " + t.ProjectName + "/" + t.Name + c.cfg.DatabaseFlags
	return schedule.DisabledRefusal(t.Name, t.TriggerID, enable).Because(refusalTriggerDisabled, "name", t.Name, "enable", enable)
}

// runs lists Runs by the filter's project, trigger, state and time window
// (given in the viewer's zone). A filter that cannot be read is answered
// on the page itself, beside the fields as they were typed.
func (c *Console) runs(w http.ResponseWriter, r *http.Request, s *session) {
	q := r.URL.Query()
	f := map[string]string{"project": q.Get("project"), "trigger": q.Get("trigger"), "state": q.Get("state"), "from": q.Get("from"), "to": q.Get("to"),
		"worker": q.Get("worker")}
	projects, err := c.projectChoices(r.Context())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	// ByWorker: the cluster, whose Runs ran on workers, offers a filter by
	// one.
	data := map[string]any{"F": f, "States": run.Reachable, "Projects": projects, "ByWorker": c.cfg.Workers != nil}
	zone := viewerZone(r)
	data["Last24URL"] = last24URL(f, zone, time.Now())
	pick, redirect, err := c.pickProject(r)
	if redirect != "" {
		http.Redirect(w, r, redirect, http.StatusFound)
		return
	}
	var triggerID string
	var from, to int64
	if err == nil {
		f["project"], data["Projects"] = pick.Name, withChosen(projects, pick.named())
		triggerID, err = c.triggerFilter(r.Context(), pick.ID, f["trigger"])
	}
	if err == nil {
		from, err = parseLocal("from", f["from"], zone)
	}
	if err == nil {
		to, err = parseLocal("to", f["to"], zone)
	}
	if err == nil && f["state"] != "" && !slices.Contains(run.Reachable, run.State(f["state"])) {
		// The store refuses it too, but in its own names for the states,
		// waiting_approval among them, which the filter does not offer.
		data["Error"] = notAFilterState(lang(r), f["state"])
		c.render(w, r, http.StatusBadRequest, "runs", s, data)
		return
	}
	var list []run.Run
	var next string
	if err == nil {
		list, next, err = c.cfg.Runs.RunList(r.Context(), run.ListParams{ProjectID: pick.ID, TriggerID: triggerID, State: run.State(f["state"]), Limit: runsPage, After: q.Get("after"),
			FromMs: from, ToMs: to, Worker: f["worker"], InProjects: boundOf(r.Context()).in()})
	}
	if err != nil {
		status := http.StatusBadRequest
		switch {
		case qlerror.CodeOf(err) == qlerror.NotFound && f["worker"] != "":
			// A worker name mistyped in the filter, said beside it.
			status = http.StatusNotFound
		case qlerror.CodeOf(err) != qlerror.Invalid:
			c.fail(w, r, s, err)
			return
		}
		data["Error"] = c.errorText(lang(r), err)
		c.render(w, r, status, "runs", s, data)
		return
	}
	if next != "" {
		v := url.Values{"after": {next}}
		for k, x := range f {
			if x != "" {
				v.Set(k, x)
			}
		}
		data["NextURL"] = "/runs?" + v.Encode()
	}
	data["List"], data["After"] = list, q.Get("after")
	// The cancel form is offered where the Run's own Cancel is, when the
	// page shows a Run that has not ended: only those have boxes.
	data["CanCancelRuns"] = c.cfg.Cancel != nil && s.scope.Allows(apitoken.Operate) && slices.ContainsFunc(list, func(r run.Run) bool { return !r.State.Finished() })
	c.render(w, r, http.StatusOK, "runs", s, data)
}

// notAFilterState says in l that v, a runs filter's state, is none a Run
// can be in, listing those it takes as the filter names them.
func notAFilterState(l, v string) string {
	names := make([]string, len(run.Reachable))
	for i, st := range run.Reachable {
		names[i] = word(l, "run", st)
	}
	return fmt.Sprintf(tr(l, "runs.notastate"), v, strings.Join(names, tr(l, "comma")))
}

// projectNamed is the id of the project a trigger filter's project/name
// names, or the id as given.
func (c *Console) projectNamed(ctx context.Context, v string) (string, error) {
	if v == "" || c.cfg.Export == nil || ids.Validate("project", v) == nil {
		return v, nil
	}
	// The project alone: no task or trigger is read.
	d, err := c.cfg.Export.ProjectDefinitions(ctx, v, 0)
	if qlerror.ReasonOf(err) == catalog.RefusalProjectMissing {
		return "", qlerror.New(qlerror.Invalid, "no project is named %q; choose one of the projects listed", v).Because(refusalNoSuchProject, "name", v)
	}
	return d.Project.ID, err
}

// triggerFilter is the trigger id a filter's trigger field gives: the
// trigger of that name (or project/name), within the project filter when
// one is chosen, else the one whose display title holds it, or an id as
// given ("" for every trigger). A name that matches nothing, or triggers
// of several projects (or titles), is refused saying so, never answered
// with an empty list.
func (c *Console) triggerFilter(ctx context.Context, projectID, v string) (string, error) {
	if v == "" || ids.Validate("trigger", v) == nil || c.cfg.Triggers == nil {
		return v, nil
	}
	project, name, qualified := triggerref.Split(v)
	if qualified {
		id, err := c.projectNamed(ctx, project)
		if err != nil {
			return "", err
		}
		if projectID != "" && id != projectID {
			return "", qlerror.New(qlerror.Invalid, "trigger %q is in project %s, not in the project chosen; choose its project, or any", v, project).
				Because(refusalTriggerElsewhere, "trigger", v)
		}
		projectID = id
	}
	found, err := triggerref.Named(ctx, c.cfg.Triggers, projectID, name)
	switch {
	case err != nil:
		return "", err
	case len(found) == 0:
		if id, ok, err := c.triggerByTitle(ctx, projectID, name); err != nil || ok {
			return id, err
		}
		return "", qlerror.New(qlerror.Invalid, "no trigger is named %q (names are case-sensitive), nor has it in its title; the Triggers page lists them", v).
			Because(refusalNoSuchTrigger, "name", v)
	case len(found) > 1:
		projects := make([]string, len(found))
		for i, t := range found {
			projects[i] = t.ProjectName
		}
		slices.Sort(projects)
		example := projects[0] + "/" + name
		return "", qlerror.New(qlerror.Invalid, "triggers named %q exist in projects %s; write project/name, e.g. %s", name, strings.Join(projects, ", "), example).
			Because(refusalTriggerAmbiguous, "name", name, "projects", strings.Join(projects, ", "), "example", example)
	}
	return found[0].TriggerID, nil
}

// runDetail shows a Run with its attempts and its log: by default the
// latest attempt's, followed live across retries; with ?attempt=N the
// log of attempt N alone, so an earlier attempt's output can be read.
func (c *Console) runDetail(w http.ResponseWriter, r *http.Request, s *session) {
	number, err := attemptParam(r)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d, err := c.cfg.Runs.RunGet(r.Context(), r.PathValue("id"))
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	if d.Waiting != nil {
		wait := *d.Waiting
		wait.Holders, wait.MoreHolders = boundHolders(r.Context(), wait.Holders, wait.MoreHolders)
		d.Waiting = &wait
	}
	var shown *run.Attempt
	if number != 0 {
		a, err := d.Attempt(number)
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		shown = &a
	}
	ended := d.Run.State.Terminal() || d.Run.State == run.Lost
	done := ended || (shown != nil && (shown.State.Terminal() || shown.ID != d.Attempts[len(d.Attempts)-1].ID))
	data := map[string]any{"D": d, "Ended": ended, "CanCancel": !ended && c.cfg.Cancel != nil, "HasLog": c.cfg.ReadLog != nil,
		"Shown": shown, "LogDone": done, "CanRerun": c.canRerun(d.Run.State), "Request": randomID()}
	// An ended attempt's output is on the page itself; the script follows
	// only a log that still grows.
	if c.cfg.ReadLog != nil && done {
		if shown == nil && len(d.Attempts) > 0 {
			shown = &d.Attempts[len(d.Attempts)-1]
		}
		if data["Log"], err = c.endedLog(r.Context(), shown); err != nil {
			c.fail(w, r, s, err)
			return
		}
	}
	c.render(w, r, http.StatusOK, "run", s, data)
}

func (c *Console) cancel(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Cancel == nil {
		c.fail(w, r, s, cannotCancel())
		return
	}
	id := r.PathValue("id")
	ran, effect, err := c.cfg.Cancel(r.Context(), id, s.actor(r))
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	said := "run.done.cancelasked"
	switch {
	case effect.Finished || effect.ClosedLost:
		said = "run.done.cancelled"
	case ran.State.Finished():
		// It had ended before this cancel: its page says how.
		http.Redirect(w, r, "/runs/"+url.PathEscape(id), http.StatusSeeOther)
		return
	}
	c.redirectWith(w, r, s, "/runs/"+url.PathEscape(id), flash{Message: fmt.Sprintf(tr(lang(r), said), id)})
}
