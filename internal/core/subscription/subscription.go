// Package subscription is the 青龙 panel's subscription (订阅) on a single
// node: a git repository pulled on a schedule into the scripts folder. It
// is no object of its own: it is the pull task and trigger `ql crontab
// convert` makes of "ql repo URL ...", named repo-OWNER-REPO[-BRANCH],
// whose task carries labels saying what it subscribes to (URL, branch,
// the regular expressions choosing which of its scripts become tasks). The
// task stays a task: the definitions page shows and edits it.
package subscription

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
)

// The labels of a subscription's pull task, as the converter writes
// them. A task with LabelURL is a subscription; the others are absent
// when empty.
const (
	LabelPrefix  = crontab.LabelPrefix
	LabelURL     = crontab.LabelURL
	LabelBranch  = crontab.LabelBranch
	LabelMatch   = crontab.LabelMatch
	LabelExclude = crontab.LabelExclude
)

// Subscription is one as the Subscriptions page shows it: its project,
// its task's and trigger's name, what it pulls and where to, which of its
// scripts become tasks, its schedule and whether it is enabled.
type Subscription struct {
	Project, Name, Title        string
	URL, Branch, Match, Exclude string
	Folder                      string
	Cron, Timezone              string
	// Enabled says that it pulls on a schedule: its task is enabled and so
	// is one of the task's triggers at least, of its name or another (a
	// task labelled by hand may be fired by a trigger of its own naming,
	// or by several), as what runs reads it.
	Enabled bool
	// Trigger is its trigger's id, "" when the task has no trigger of its
	// name (then its schedule is another trigger's, or none).
	Trigger string
	// TriggerEnabled says that its trigger of its name and its task are
	// both enabled, so that Pull now, which runs that trigger, can run.
	TriggerEnabled bool
	// SecretCredentials says that its task's env gives a credential
	// variable (crontab.CredentialVariables) from a secret.
	SecretCredentials bool
}

// Form is a subscription as the add and edit forms send it.
type Form struct {
	Project, URL, Branch, Match, Exclude, Cron, Timezone string
	Enabled                                              bool
}

// Of lists the subscriptions of a project's definitions: its tasks
// labelled LabelURL, each with its trigger of the same name and enabled
// when the task and one of its triggers are.
func Of(d catalog.Definitions) []Subscription {
	var out []Subscription
	for _, t := range d.Tasks {
		u, ok := t.Spec.Labels[LabelURL]
		if !ok {
			continue
		}
		l := t.Spec.Labels
		s := Subscription{Project: d.Project.Name, Name: t.Spec.Name, Title: d.Titles.Tasks[t.Spec.Name], URL: u, Branch: l[LabelBranch], Match: l[LabelMatch], Exclude: l[LabelExclude],
			SecretCredentials: apply.SecretCredentials(t.Spec.Command.Env, crontab.CredentialVariables())}
		if p, why := crontab.PullOf(s.URL, s.Branch); why == "" {
			s.Folder = p.Folder
		}
		fires := false
		for _, tr := range d.Triggers {
			if tr.TaskID != t.TaskID {
				continue
			}
			fires = fires || tr.Spec.Enabled
			if tr.Spec.Name == t.Spec.Name {
				s.Trigger, s.Cron, s.Timezone, s.TriggerEnabled = tr.TriggerID, tr.Spec.Cron.Expression, tr.Spec.Cron.Timezone, tr.Spec.Enabled && t.Spec.Enabled
			}
		}
		s.Enabled = t.Spec.Enabled && fires
		out = append(out, s)
	}
	return out
}

// Labels are f's task labels (its fields are checked no longer than a
// label's).
func (f Form) Labels() map[string]string {
	return crontab.SubscriptionLabels(f.URL, f.Branch, f.Match, f.Exclude)
}

// Note is what an audit record of f says beside its URL: its branch and
// schedule, and whether it is disabled.
func (f Form) Note() string {
	branch := f.Branch
	if branch == "" {
		branch = "(the repository's default)"
	}
	note := "branch " + branch + ", cron " + f.Cron + " " + f.Timezone
	if !f.Enabled {
		note += ", disabled"
	}
	return note
}

// The reasons of a subscription form's refusals.
const (
	// RefusalURL is a URL of no form a subscription takes: value (its
	// credentials left out), why.
	RefusalURL qlerror.Reason = "subscription_url"
	// RefusalURLRepo is a URL naming no owner and repository, which the
	// subscription's name and folder are made of: value.
	RefusalURLRepo qlerror.Reason = "subscription_url_repo"
	// RefusalBranch is a branch git would not take as one: value.
	RefusalBranch qlerror.Reason = "subscription_branch"
	// RefusalPattern is a match or exclude that is no regular expression
	// or is too long: field (match or exclude), why.
	RefusalPattern qlerror.Reason = "subscription_pattern"
	// RefusalExists is a subscription of the name the form's URL and
	// branch make, in this or another project: name, project.
	RefusalExists qlerror.Reason = "subscription_exists"
	// RefusalFolderTaken is a subscription (new or edited) whose folder
	// another subscription pulls into already, or one inside or around
	// it (crontab.FoldersShare): folder, name, project, other (the other's
	// folder).
	RefusalFolderTaken qlerror.Reason = "subscription_folder_taken"
	// RefusalMissing is a subscription of no such name: name.
	RefusalMissing qlerror.Reason = "subscription_missing"
	// RefusalRenamed is an edit whose URL or branch make another name
	// than the subscription's: name, new.
	RefusalRenamed qlerror.Reason = "subscription_renamed"
)

// Check reads f, refusing each of its fields a subscription does not
// take (every mistake at once), and is the pull task it makes.
func (f Form) Check() (crontab.RepoPull, []error) {
	var errs []error
	// taken says whether value, the field, has no control or format
	// character and passes by, adding the refusal to errs otherwise.
	taken := func(field, value string, by func(string) error) bool {
		err := checkCharacters(field, value)
		if err == nil {
			err = by(value)
		}
		if err != nil {
			errs = append(errs, err)
		}
		return err == nil
	}
	var pull crontab.RepoPull
	urlTaken := taken("url", f.URL, func(u string) (err error) {
		pull, err = checkURL(u)
		return err
	})
	if taken("branch", f.Branch, checkBranch) && urlTaken {
		pull, _ = crontab.PullOf(f.URL, f.Branch)
	}
	for _, p := range []struct{ field, value string }{{"match", f.Match}, {"exclude", f.Exclude}} {
		taken(p.field, p.value, func(v string) error { return checkPattern(p.field, v) })
	}
	return pull, errs
}

// schemes are the URL schemes git fetches a subscription over; ext:: and
// other transports that run commands are not among them.
var schemes = []string{"https://", "http://", "ssh://", "git://", "file://"}

// scpLike is git's user@host:path form (git@github.com:owner/repo.git).
var scpLike = regexp.MustCompile(`^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^:/][^:]*$`)

// checkURL refuses a URL git would not fetch as a repository here, or
// that names no owner and repository.
func checkURL(u string) (crontab.RepoPull, error) {
	refuse := func(why string) error {
		return qlerror.New(qlerror.Invalid, "the repository URL %q %s: write https://host/OWNER/REPO.git, ssh://git@host/OWNER/REPO.git, git@host:OWNER/REPO.git, "+
			"or file:///path/OWNER/REPO.git for one on this host", refusedURL(u), why).Because(RefusalURL, "value", refusedURL(u), "why", why)
	}
	switch {
	case u == "":
		return crontab.RepoPull{}, refuse("is empty")
	case len(u) > task.MaxLabelLen:
		return crontab.RepoPull{}, refuse(fmt.Sprintf("has %d characters, more than the %d a subscription keeps", len(u), task.MaxLabelLen))
	case strings.ContainsFunc(u, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return crontab.RepoPull{}, refuse("holds a space or a control character")
	case strings.HasPrefix(u, "-"):
		return crontab.RepoPull{}, refuse("starts with '-', which git would read as an option")
	case crontab.CredentialsFault(u) != "":
		return crontab.RepoPull{}, refuse("holds a user and password with a '/', '?' or '#', which ends the host's name there, so git would not read them as such: write those characters percent-encoded (%2F, %3F, %23)")
	}
	known := scpLike.MatchString(u)
	for _, s := range schemes {
		if rest, ok := strings.CutPrefix(strings.ToLower(u), s); ok && rest != "" && (s == "file://" || !strings.HasPrefix(rest, "/")) {
			known = true
		}
	}
	if !known {
		return crontab.RepoPull{}, refuse("is of no form a subscription takes (https, http, ssh, git, file, or user@host:path)")
	}
	p, why := crontab.PullOf(u, "")
	if why != "" {
		return p, qlerror.New(qlerror.Invalid, "%s", crontab.NoOwnerAndRepo(refusedURL(u))).Because(RefusalURLRepo, "value", refusedURL(u))
	}
	return p, nil
}

// checkBranch refuses a branch name git refuses, in the converter's
// words (crontab.BranchFault), so that it cannot be read as an option or
// leave the folder.
func checkBranch(b string) error {
	if why := crontab.BranchFault(b); why != "" {
		return qlerror.New(qlerror.Invalid, "%s", why).Because(RefusalBranch, "value", b)
	}
	return nil
}

// checkPattern refuses a match or exclude that is no regular expression
// (Go's syntax, which `ql crontab scripts` reads) or longer than a label.
func checkPattern(field, p string) error {
	if p == "" {
		return nil
	}
	why := ""
	if len(p) > task.MaxLabelLen {
		why = fmt.Sprintf("it has %d characters, more than the %d a subscription keeps", len(p), task.MaxLabelLen)
	} else if _, err := regexp.Compile(p); err != nil {
		why = err.Error()
	}
	if why == "" {
		return nil
	}
	return qlerror.New(qlerror.Invalid, "%s: %q is no regular expression a subscription takes (%s): write one such as jd_|jx_, or leave it empty", field, p, why).
		Because(RefusalPattern, "field", field, "why", why)
}

// Exists refuses a new subscription of a name one has already.
func Exists(s Subscription) error {
	return qlerror.New(qlerror.Conflict, "a subscription named %s exists already (project %s), pulling into the same folder: edit it, or delete it first", s.Name, s.Project).
		Because(RefusalExists, "name", s.Name, "project", s.Project)
}

// FolderTaken refuses a subscription pulling into folder, which other's
// folder is, or is inside or around.
func FolderTaken(folder string, other Subscription) error {
	return qlerror.New(qlerror.Conflict, "the subscription %s (project %s) pulls into the folder %s already, and this one would pull into %s: "+
		"two subscriptions of one folder (or one inside the other's) would pull into one clone, and deleting one with its folder would delete the other's scripts; "+
		"name another branch, or edit or delete %s first", other.Name, other.Project, other.Folder, folder, other.Name).
		Because(RefusalFolderTaken, "folder", folder, "name", other.Name, "project", other.Project, "other", other.Folder)
}

// folderTaken is the subscription other than the one named self whose
// folder shares files with folder, and whether there is one.
func folderTaken(subs []Subscription, self, folder string) (Subscription, bool) {
	for _, s := range subs {
		if s.Name != self && s.Folder != "" && crontab.FoldersShare(s.Folder, folder) {
			return s, true
		}
	}
	return Subscription{}, false
}

// Missing refuses a subscription of no such name.
func Missing(name string) error {
	return qlerror.New(qlerror.NotFound, "there is no subscription named %q (deleted since, or its task's labels were removed): the Subscriptions page lists them", name).
		Because(RefusalMissing, "name", name)
}

// Renamed refuses an edit whose URL or branch make another name.
func Renamed(name, to string) error {
	return qlerror.New(qlerror.Invalid, "this URL and branch make the subscription %s, not %s: a subscription's name and folder follow its repository and branch; "+
		"add %s as a new subscription and delete %s", to, name, to, name).Because(RefusalRenamed, "name", name, "new", to)
}

// Redacted is u without the credentials a URL may carry
// (https://user:token@host/...): what records and pages show of it.
func Redacted(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return u
	}
	rest := u[i+3:]
	host := rest
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		host = rest[:j]
	}
	at := strings.LastIndex(host, "@")
	if at < 0 {
		return u
	}
	return u[:i+3] + rest[at+1:]
}

// KeepCredentials is the URL an edit form sent as sent, or the stored
// one when the form sent it as shown, without its credentials
// (Redacted): the form never shows a token, and an edit that leaves the
// URL alone keeps pulling with it. A URL sent with credentials, or
// another URL, replaces the stored one.
func KeepCredentials(sent, stored string) string {
	if sent == Redacted(sent) && sent == Redacted(stored) {
		return stored
	}
	return sent
}

// RefusedFormURL is the URL a refused form shows again in its box: sent
// without the credentials it carries, however they were written
// (refusedURL), as no page holds a token; retype says that some were left
// out, which the user must type again, since the URL sent back as shown
// keeps the credentials the subscription had (KeepCredentials), none for
// a new one.
func RefusedFormURL(sent string) (shown string, retype bool) {
	shown = refusedURL(sent)
	return shown, shown != sent
}

// List reads every project's subscriptions, in project and name order.
func List(ctx context.Context, r catalog.DefinitionsReader) ([]Subscription, error) {
	return list(ctx, r, projectsPage)
}

// list is List reading page projects' names at a time.
func list(ctx context.Context, r catalog.DefinitionsReader, page int) ([]Subscription, error) {
	var out []Subscription
	err := eachProject(ctx, r, page, func(d catalog.Definitions) {
		out = append(out, Of(d)...)
	})
	return out, err
}

// projectsPage is how many projects' names List and Rescope read at a
// time, as the console's pickers offer them.
const projectsPage = 1000

// eachProject calls do with every project's definitions, in name order,
// reading page projects' names at a time to the last: a site may have
// more projects than one read returns, and a subscription of one past
// the first page is a subscription all the same.
func eachProject(ctx context.Context, r catalog.DefinitionsReader, page int, do func(catalog.Definitions)) error {
	after := ""
	for {
		projects, err := r.ProjectNames(ctx, after, page, nil)
		if err != nil {
			return err
		}
		for _, p := range projects {
			d, err := r.ProjectDefinitions(ctx, p.Name, max(apply.MaxTasks, apply.MaxTriggers))
			if err != nil {
				return err
			}
			do(d)
		}
		if len(projects) < page {
			return nil
		}
		after = projects[len(projects)-1].Name
	}
}

// Named is the subscription of name among subs, and whether there is one.
func Named(subs []Subscription, name string) (Subscription, bool) {
	for _, s := range subs {
		if s.Name == name {
			return s, true
		}
	}
	return Subscription{}, false
}

// Find reads the subscription named name, refusing with Missing when
// there is none, and a name holding a control or format character
// (checkCharacters) before looking.
func Find(ctx context.Context, r catalog.DefinitionsReader, name string) (Subscription, error) {
	if err := checkCharacters("subscription name", name); err != nil {
		return Subscription{}, err
	}
	subs, err := List(ctx, r)
	if err != nil {
		return Subscription{}, err
	}
	sub, ok := Named(subs, name)
	if !ok {
		return Subscription{}, Missing(name)
	}
	return sub, nil
}

// Saved is what Save published: the pull task, and whether the edit
// removed credentials its task's env gave from a secret.
type Saved struct {
	crontab.RepoPull
	// SecretCredentialsDropped says that the credential variables were
	// removed from the task's env, one given from a secret, because the
	// edited URL leads to another host (sameCredentialScope) and was
	// sent without credentials: the task pulls without any until some
	// are typed into its URL or set in its env again, which the page
	// says.
	SecretCredentialsDropped bool
}

// AuditNote is the audit record's note of a save of f: what f holds, and
// the credentials the save removed.
func (s Saved) AuditNote(f Form) string {
	if s.SecretCredentialsDropped {
		return f.Note() + ", the credential variables given from a secret removed (set for another host)"
	}
	return f.Note()
}

// Save publishes f by actor: as a new subscription when name is "", else
// as the edit of the subscription named name (whose project it keeps,
// and its URL's credentials when f sends its URL without them:
// KeepCredentials). An edit gives the task the pull script in place of
// its script or command, and keeps the credential variables a task's
// env gives from a secret when f's URL is sent without credentials and
// leads to the host they were set for (sameCredentialScope), the stored
// URL's user carried into it (withStoredUser), and drops them when it
// leads elsewhere (Saved.SecretCredentialsDropped). An edit whose
// Enabled is the state the subscription reads (Subscription.Enabled)
// asks for no change of it, and leaves the enabled state of its task and
// of each of its triggers as it is (a trigger of its name the edit makes
// takes that state): a hand-labelled task pulled by a trigger of another
// name, or one of several triggers, must not be stopped by an edit of
// its schedule or match. One asking for the other state sets it (apply.PullEntry).
// It returns the pull task f makes (Saved) and every refusal: a name holding a
// control or format character (checkCharacters), f's fields', a
// name taken (a new one's, in any project) or changed (an edit's), a
// folder another subscription pulls into (FolderTaken), and the
// publish's, as an apply of the file it writes refuses it (a cron or
// zone refused as a trigger's, a change published meanwhile).
func Save(ctx context.Context, r catalog.DefinitionsReader, svc catalog.Service, f Form, name, actor string) (Saved, Form, []error) {
	if err := checkCharacters("subscription name", name); err != nil {
		return Saved{}, f, []error{err}
	}
	subs, err := List(ctx, r)
	if err != nil {
		return Saved{}, f, []error{err}
	}
	sent := f.URL
	if old, ok := Named(subs, name); ok && name != "" {
		f.URL = KeepCredentials(f.URL, old.URL)
		if old.SecretCredentials && sent == Redacted(sent) && sameCredentialScope(old.URL, f.URL) {
			f.URL = withStoredUser(f.URL, old.URL)
		}
	}
	pull, errs := f.Check()
	saved := Saved{RepoPull: pull}
	if len(errs) > 0 {
		return saved, f, errs
	}
	keepSecret, keepEnabled := false, false
	if name != "" {
		old, ok := Named(subs, name)
		switch {
		case !ok:
			return saved, f, []error{Missing(name)}
		case pull.Name != old.Name:
			return saved, f, []error{Renamed(old.Name, pull.Name)}
		}
		f.Project, keepEnabled = old.Project, f.Enabled == old.Enabled
		typed := sent != Redacted(sent) && pull.Env != nil
		keepSecret = !typed && sameCredentialScope(old.URL, f.URL)
		saved.SecretCredentialsDropped = old.SecretCredentials && !typed && !keepSecret
	} else if other, ok := Named(subs, pull.Name); ok {
		return saved, f, []error{Exists(other)}
	}
	if other, ok := folderTaken(subs, name, pull.Folder); ok {
		return saved, f, []error{FolderTaken(pull.Folder, other)}
	}
	e := apply.PullEntry{Project: f.Project, Name: pull.Name, Title: pull.Title, Script: pull.Script, Labels: f.Labels(), LabelPrefix: LabelPrefix,
		Env: pull.Env, EnvNames: crontab.CredentialVariables(), KeepSecretCredentials: keepSecret, Enabled: f.Enabled, KeepEnabled: keepEnabled, Cron: f.Cron, Timezone: f.Timezone}
	var text []byte
	var expect []apply.Expected
	if name != "" {
		text, expect, err = apply.PullEditFile(ctx, r, e)
	} else {
		text, err = apply.NewPullFile(ctx, r, e)
	}
	if err == nil {
		err = publish(ctx, svc, text, expect, name == "", actor)
	}
	if err != nil {
		saved.SecretCredentialsDropped = false
		return saved, f, []error{err}
	}
	return saved, f, nil
}

// withStoredUser is edited, an edit's URL of the stored one's scope
// (sameCredentialScope), with the user stored carries before its host
// when edited carries none: the credential variables an edit keeps from a
// secret were set with that URL, and the URL the subscription shows and
// pulls by keeps naming the user they sign in as, whichever way the
// edit's URL was typed. The stored password is never carried: the secret
// gives it.
func withStoredUser(edited, stored string) string {
	if edited != Redacted(edited) {
		return edited
	}
	i := strings.Index(stored, "://")
	host := stored[i+3:]
	if j := strings.IndexAny(host, "/?#"); j >= 0 {
		host = host[:j]
	}
	at := strings.LastIndex(host, "@")
	if at < 0 {
		return edited
	}
	user, _, _ := strings.Cut(host[:at], ":")
	if user == "" {
		return edited
	}
	i = strings.Index(edited, "://")
	return edited[:i+3] + user + "@" + edited[i+3:]
}

// sameCredentialScope says whether the pull of edited gives credentials
// to the scheme, host and port the pull of stored gives them to
// (crontab.CredentialScope: the credential helper answers those only),
// both http or https: credentials set for stored reach no other server.
func sameCredentialScope(stored, edited string) bool {
	a, ok := crontab.CredentialScope(stored)
	b, same := crontab.CredentialScope(edited)
	return ok && same && a == b
}

// End ends sub by actor: its task loses the labels that made it a
// subscription, and it and its trigger are disabled. A task is never
// deleted: its Runs and history stay, and its folder is left as it is.
// Its command and env stay as they are, so that enabled again by hand it
// pulls what it pulled: a script written again from its labels would
// pull something else where they no longer make one (a branch stored
// with a character the form now refuses would be read as none, the
// default branch pulled into another folder), or where its script was
// edited as a task's.
func End(ctx context.Context, r catalog.DefinitionsReader, svc catalog.Service, sub Subscription, actor string) error {
	e := apply.PullEntry{Project: sub.Project, Name: sub.Name, KeepCommand: true, LabelPrefix: LabelPrefix, Cron: sub.Cron, Timezone: sub.Timezone}
	text, expect, err := apply.PullEditFile(ctx, r, e)
	if err != nil {
		return err
	}
	return publish(ctx, svc, text, expect, false, actor)
}

// publish applies a subscription's file by actor, as the definitions
// page applies one: one transaction, the publish audited, the revisions
// the file was written from checked again (expect), a new one's refused
// if anything of it exists meanwhile (createOnly).
func publish(ctx context.Context, svc catalog.Service, text []byte, expect []apply.Expected, createOnly bool, actor string) error {
	return publishAs(ctx, svc, text, expect, apply.Options{Actor: actor, Summarized: true, CreateOnly: createOnly})
}

// publishAs applies a subscription's file with o, the revisions it was
// written from checked again (expect).
func publishAs(ctx context.Context, svc catalog.Service, text []byte, expect []apply.Expected, o apply.Options) error {
	doc, err := apply.Parse("subscription.yaml", text)
	if err != nil {
		return err
	}
	doc.Expect = expect
	_, err = apply.Publish(ctx, svc, doc, ids.New, o)
	return err
}
