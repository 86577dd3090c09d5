package console

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/scripts"
	"github.com/qinglong/qinglong/internal/core/subscription"
)

// subscriptionsData is what the Subscriptions page shows: the list, or
// one subscription's form (Mode new or edit) or its delete's confirm.
type subscriptionsData struct {
	// Here is false where the commands run on other machines (a
	// cluster's workers, which pull into their own scripts folders): the
	// page then says so instead.
	Here bool
	// Mode is list, new, edit or delete.
	Mode string
	List []subscriptionRow
	// Form is the form's fields; Name the subscription edited or
	// deleted; Errors why the last form did nothing, in the page's
	// language.
	Form     subscription.Form
	Name     string
	Errors   []string
	Folder   string
	Projects []catalog.ProjectName
	// FolderHere says the subscription's folder is in the scripts folder
	// now (the delete's confirm offers to delete it).
	FolderHere bool
	// Retype says that the refused form's URL carried a user or token,
	// which its box shows no more: the page asks for it again.
	Retype bool
	// Request keys the list's Pull now forms, so that a form sent twice
	// (a double click, a resend) admits one Run.
	Request string
}

// subscriptionRow is one subscription as the list shows it, with its
// last pull and next.
type subscriptionRow struct {
	subscription.Subscription
	// Shown is its URL without credentials (the page writes its
	// text-direction characters as escapes, as every field read from the
	// task's labels: a U+202E in a label would otherwise reorder the row).
	Shown string
	Last  *run.Last
	// Next is its trigger's next fire, nil when it has none.
	Next *int64
}

// subscriptionsPage lists every subscription of every project.
func (c *Console) subscriptionsPage(w http.ResponseWriter, r *http.Request, s *session) {
	d := subscriptionsData{Mode: "list"}
	if !c.subscriptionsHere() {
		c.render(w, r, http.StatusOK, "subscriptions", s, d)
		return
	}
	d.Here, d.Request = true, randomID()
	subs, err := subscription.List(r.Context(), c.cfg.Export)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	var triggers []string
	for _, sub := range subs {
		row := subscriptionRow{Subscription: sub, Shown: subscription.Redacted(sub.URL)}
		if sub.Trigger != "" {
			triggers = append(triggers, sub.Trigger)
			// Its next fire as the triggers list reckons it: none while
			// paused, disabled or archived.
			t, err := c.cfg.Detail.TriggerDetail(r.Context(), sub.Trigger, 1)
			if err != nil {
				c.fail(w, r, s, err)
				return
			}
			if fires := upcoming(t.TriggerStatus, c.cfg.NowMs()); len(fires) > 0 {
				row.Next = &fires[0].AtMs
			}
		}
		d.List = append(d.List, row)
	}
	if c.cfg.LastRuns != nil && len(triggers) > 0 {
		last, err := c.cfg.LastRuns.RunsLast(r.Context(), triggers)
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		for i := range d.List {
			if l, ok := last[d.List[i].Trigger]; ok {
				d.List[i].Last = &l
			}
		}
	}
	c.render(w, r, http.StatusOK, "subscriptions", s, d)
}

// subscriptionsHere says whether this server pulls subscriptions into a
// scripts folder of its own and may publish their tasks.
func (c *Console) subscriptionsHere() bool {
	return c.cfg.Scripts != nil && c.cfg.Definitions != nil && c.cfg.Export != nil
}

// subscriptionNewPage is the Add subscription form.
func (c *Console) subscriptionNewPage(w http.ResponseWriter, r *http.Request, s *session) {
	c.renderSubscriptionForm(w, r, s, http.StatusOK, subscriptionsData{Mode: "new", Form: subscription.Form{Cron: "0 */6 * * *", Timezone: viewerZone(r), Enabled: true}})
}

// subscriptionEditPage is the Edit subscription form of ?name=.
func (c *Console) subscriptionEditPage(w http.ResponseWriter, r *http.Request, s *session) {
	c.subscriptionOf(w, r, s, "edit", r.URL.Query().Get("name"))
}

// subscriptionDeletePage asks to confirm the delete of ?name=, saying
// that its folder stays unless the box is ticked.
func (c *Console) subscriptionDeletePage(w http.ResponseWriter, r *http.Request, s *session) {
	c.subscriptionOf(w, r, s, "delete", r.URL.Query().Get("name"))
}

// subscriptionOf shows the form of mode filled with the subscription
// named name.
func (c *Console) subscriptionOf(w http.ResponseWriter, r *http.Request, s *session, mode, name string) {
	if !c.subscriptionsHere() {
		c.render(w, r, http.StatusOK, "subscriptions", s, subscriptionsData{Mode: "list"})
		return
	}
	sub, err := subscription.Find(r.Context(), c.cfg.Export, name)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	// The form shows the URL without its credentials, which an edit that
	// sends it so keeps (subscription.KeepCredentials).
	d := subscriptionsData{Mode: mode, Name: sub.Name, Folder: sub.Folder, Form: subscription.Form{Project: sub.Project, URL: subscription.Redacted(sub.URL), Branch: sub.Branch,
		Match: sub.Match, Exclude: sub.Exclude, Cron: sub.Cron, Timezone: sub.Timezone, Enabled: sub.Enabled}}
	if mode == "delete" && sub.Folder != "" {
		_, err := c.cfg.Scripts.Stat(sub.Folder)
		d.FolderHere = err == nil
	}
	c.renderSubscriptionForm(w, r, s, http.StatusOK, d)
}

func (c *Console) renderSubscriptionForm(w http.ResponseWriter, r *http.Request, s *session, status int, d subscriptionsData) {
	if !c.subscriptionsHere() {
		c.render(w, r, http.StatusOK, "subscriptions", s, subscriptionsData{Mode: "list"})
		return
	}
	d.Here = true
	var err error
	if d.Projects, err = c.projectChoices(r.Context()); err != nil {
		c.fail(w, r, s, err)
		return
	}
	d.Projects = unarchived(d.Projects)
	c.render(w, r, status, "subscriptions", s, d)
}

// sentSubscription is the form's fields.
func sentSubscription(r *http.Request) subscription.Form {
	field := func(name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
	return subscription.Form{Project: field("project"), URL: field("url"), Branch: field("branch"), Match: field("match"), Exclude: field("exclude"),
		Cron: field("cron"), Timezone: field("timezone"), Enabled: r.PostFormValue("enabled") == "1"}
}

// subscriptionCreate publishes the form's subscription: its pull task
// and trigger, named as the converter names them, refused when a
// subscription of that name exists in any project (both would pull into
// one folder).
func (c *Console) subscriptionCreate(w http.ResponseWriter, r *http.Request, s *session) {
	c.subscriptionSave(w, r, s, "new")
}

// subscriptionUpdate publishes the edited subscription's task and
// trigger; its URL and branch must still make its name.
func (c *Console) subscriptionUpdate(w http.ResponseWriter, r *http.Request, s *session) {
	c.subscriptionSave(w, r, s, "edit")
}

func (c *Console) subscriptionSave(w http.ResponseWriter, r *http.Request, s *session, mode string) {
	if !c.subscriptionsHere() {
		c.render(w, r, http.StatusOK, "subscriptions", s, subscriptionsData{Mode: "list"})
		return
	}
	l := lang(r)
	f := sentSubscription(r)
	d := subscriptionsData{Mode: mode, Form: f, Name: r.PostFormValue("name")}
	refuse := func(errs ...error) {
		for _, err := range errs {
			msgs, _ := c.fileErrors(l, err)
			for _, m := range msgs {
				d.Errors = append(d.Errors, m.Message)
			}
		}
		c.renderSubscriptionForm(w, r, s, statusOf(errs[0]), d)
	}
	name := ""
	if mode == "edit" {
		name = d.Name
	}
	pull, f, errs := subscription.Save(r.Context(), c.cfg.Export, *c.cfg.Definitions, f, name, s.actor(r))
	// A refused form shows the URL as it was sent without its
	// credentials: never the stored ones Save put back into it, nor a
	// token typed into it, which the page asks for again (Retype).
	sent := d.Form.URL
	d.Form = f
	d.Form.URL, d.Retype = subscription.RefusedFormURL(sent)
	for _, err := range errs {
		if qlerror.CodeOf(err) == qlerror.Internal || outOfTime(r, err) {
			c.fail(w, r, s, err)
			return
		}
	}
	if len(errs) > 0 {
		refuse(errs...)
		return
	}
	action, done := audit.SubscriptionCreated, "sub.done.created"
	if mode == "edit" {
		action, done = audit.SubscriptionUpdated, "sub.done.updated"
	}
	if pull.SecretCredentialsDropped {
		done = "sub.done.otherhost"
	}
	if c.recordSubscription(w, r, s, audit.Subscription(action, s.actor(r), f.Project, pull.Name, subscription.Redacted(f.URL), pull.AuditNote(f)), "subscription "+pull.Name+" was saved") {
		c.redirectWith(w, r, s, "/subscriptions", flash{Message: fmt.Sprintf(tr(l, done), pull.Name, visibleControls(pull.Folder))})
	}
}

// subscriptionDelete ends a subscription: its task loses the labels that
// made it one and it and its trigger are disabled (a task is never
// deleted: its Runs and history stay), and its folder is deleted from the
// scripts folder only when the form's box says so.
func (c *Console) subscriptionDelete(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.subscriptionsHere() {
		c.render(w, r, http.StatusOK, "subscriptions", s, subscriptionsData{Mode: "list"})
		return
	}
	l := lang(r)
	name := r.PostFormValue("name")
	sub, err := subscription.Find(r.Context(), c.cfg.Export, name)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	if err := subscription.End(r.Context(), c.cfg.Export, *c.cfg.Definitions, sub, s.actor(r)); err != nil {
		c.fail(w, r, s, err)
		return
	}
	note, key := "its folder "+sub.Folder+" kept", "sub.done.deleted"
	if r.PostFormValue("folder") == "1" && sub.Folder != "" {
		gone, err := c.cfg.Scripts.Remove(sub.Folder, true)
		switch {
		case qlerror.ReasonOf(err) == scripts.RefusalMissing:
		case err != nil:
			// The subscription is gone; its folder is not, and the page
			// says why.
			if c.recordSubscription(w, r, s, audit.Subscription(audit.SubscriptionDeleted, s.actor(r), sub.Project, sub.Name, subscription.Redacted(sub.URL), note), "subscription "+sub.Name+" was deleted") {
				c.fail(w, r, s, err)
			}
			return
		default:
			note, key = fmt.Sprintf("its folder %s deleted (%d entries)", sub.Folder, gone.Entries), "sub.done.deletedfolder"
		}
	}
	if c.recordSubscription(w, r, s, audit.Subscription(audit.SubscriptionDeleted, s.actor(r), sub.Project, sub.Name, subscription.Redacted(sub.URL), note), "subscription "+sub.Name+" was deleted") {
		c.redirectWith(w, r, s, "/subscriptions", flash{Message: fmt.Sprintf(tr(l, key), sub.Name, visibleControls(sub.Folder))})
	}
}

// subscriptionPull runs the subscription's pull task now, as its
// trigger's Run now does, and shows the Run with its live log.
func (c *Console) subscriptionPull(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.subscriptionsHere() || c.cfg.Manual == nil {
		c.fail(w, r, s, cannotRunNow())
		return
	}
	name := r.PostFormValue("name")
	sub, err := subscription.Find(r.Context(), c.cfg.Export, name)
	if err == nil && sub.Trigger == "" {
		err = subscription.Missing(name)
	}
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	reqID := r.PostFormValue("request")
	if reqID == "" {
		reqID = randomID()
	}
	res, err := c.runNowOne(r, s, sub.Trigger, reqID)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	if res.RunID == "" {
		c.failWith(w, r, s, http.StatusConflict, fmt.Sprintf(tr(lang(r), overlapKey("err.overlap", res.Waiting)), res.Unfinished))
		return
	}
	// A form sent again finds the Run it admitted (not Created): that pull
	// is recorded once.
	if !res.Created || c.recordSubscription(w, r, s, audit.Subscription(audit.SubscriptionPulled, s.actor(r), sub.Project, sub.Name, subscription.Redacted(sub.URL), "Run "+res.RunID), "subscription "+sub.Name+" was pulled") {
		http.Redirect(w, r, "/runs/"+url.PathEscape(res.RunID), http.StatusSeeOther)
	}
}

// recordSubscription records e once the change it records is done; a
// record that cannot be written is the change standing unrecorded
// (audit.RecordDone), said on the error page and logged with who made
// it. It reports whether the record was written.
func (c *Console) recordSubscription(w http.ResponseWriter, r *http.Request, s *session, e audit.Entry, done string) bool {
	if c.cfg.ScriptsRecord == nil {
		return true
	}
	if err := audit.RecordDone(r.Context(), c.cfg.ScriptsRecord, e, done); err != nil {
		c.cfg.Log.Error("console: subscription change not recorded", "code", audit.CodeNotRecorded, "action", string(e.Action), "subscription", e.ObjectName, "actor", e.Actor, "error", err.Error())
		c.fail(w, r, s, err)
		return false
	}
	return true
}
