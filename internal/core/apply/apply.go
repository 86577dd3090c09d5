package apply

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// Result is what applying did to one object.
type Result struct {
	Kind     string // project, task, trigger
	Name     string
	Change   catalog.Change
	Revision int64
	// Fields names what an update changes ("command.script",
	// "cron.expression", "taskRevision" for a trigger following its
	// task; a project's status with its from and to, "status archived →
	// active"); "notifications" for a project created with some; empty
	// otherwise. An update of the notifications is followed by the rules
	// it adds and removes ("notifications.rules +{on: failed, channel:
	// ops}").
	Fields []string
	// Runs says, for a project this apply archives, what becomes of its
	// Runs (ArchivedRuns); empty otherwise.
	Runs string
}

// ArchivedRuns is what archiving a project does to its Runs, said with
// the apply's result: the dispatchers of both profiles start no Run of an
// archived project, so the queued ones and every retry wait, and those
// already running are not stopped.
const ArchivedRuns = "archived: none of its queued Runs or retries starts while it is archived, they wait and start only once it is active again (`runs cancel` one to drop it); Runs already running are not stopped"

func (r Result) String() string {
	change := string(r.Change)
	if r.Change == catalog.Created && len(r.Fields) > 0 {
		change += " with " + strings.Join(r.Fields, ", ")
	}
	if r.Runs != "" {
		change += "; " + r.Runs
	}
	if r.Revision > 0 {
		return fmt.Sprintf("%s %s: %s (revision %d)", r.Kind, r.Name, change, r.Revision)
	}
	return fmt.Sprintf("%s %s: %s", r.Kind, r.Name, change)
}

// Check validates cross-references and cron expressions without a store:
// every trigger names a task of the file, names are unique, an enabled
// trigger does not point at a disabled task, and each expression fires.
// It reports every error it finds (FileErrors).
func Check(doc *Document, nowMs int64) error {
	f := &found{}
	tasks := make([]taskEntry, len(doc.Tasks))
	for i, t := range doc.Tasks {
		tasks[i] = taskEntry{TaskDoc: t, named: true, clean: true}
	}
	triggers := make([]triggerEntry, len(doc.Triggers))
	for i, tr := range doc.Triggers {
		triggers[i] = triggerEntry{TriggerDoc: tr, named: true, bound: true, clean: true}
	}
	f.references(doc.File, tasks, triggers)
	for i, tr := range doc.Triggers {
		if err := tr.Spec.Validate(nowMs); err != nil {
			f.add(locatedIn(doc.File, tr.Line, 0, Entry{Kind: "trigger", Index: i, Name: tr.Spec.Name}, err))
		}
	}
	return f.err(doc.File)
}

// references reports what the entries of a file say of each other that is
// wrong: a task or trigger name given twice, a trigger naming a task the
// file lacks, an enabled trigger of a disabled task. An entry takes part
// as far as it was read, so that its own error is not reported again as
// another: a trigger is not said to name a missing task while a task's
// name could not be read (it may be that one), nor a disabled one unless
// both were read whole.
func (f *found) references(file string, tasks []taskEntry, triggers []triggerEntry) {
	byName := map[string]taskEntry{}
	allNamed := true
	for i, t := range tasks {
		if !t.named {
			allNamed = false
			continue
		}
		if _, dup := byName[t.Spec.Name]; dup {
			f.add(about(file, t.Line, Entry{Kind: "task", Index: i, Name: t.Spec.Name},
				invalid("task %q is defined twice", t.Spec.Name).Because(RefusalDefinedTwice, "kind", "task", "name", t.Spec.Name, "field", "task.name")))
			continue
		}
		byName[t.Spec.Name] = t
	}
	seen := map[string]bool{}
	for i, tr := range triggers {
		if !tr.named {
			continue
		}
		entry := Entry{Kind: "trigger", Index: i, Name: tr.Spec.Name}
		if seen[tr.Spec.Name] {
			f.add(about(file, tr.Line, entry, invalid("trigger %q is defined twice", tr.Spec.Name).
				Because(RefusalDefinedTwice, "kind", "trigger", "name", tr.Spec.Name, "field", "trigger.name")))
		}
		seen[tr.Spec.Name] = true
		if !tr.bound {
			continue
		}
		t, ok := byName[tr.TaskName]
		switch {
		case !ok && allNamed:
			f.add(about(file, tr.Line, entry, invalid("trigger %q: trigger.task %q is not a task of this file", tr.Spec.Name, tr.TaskName).
				Because(RefusalUnknownTask, "trigger", tr.Spec.Name, "task", tr.TaskName, "field", "trigger.task")))
		case ok && tr.clean && t.clean && tr.Spec.Enabled && !t.Spec.Enabled:
			f.add(about(file, tr.Line, entry, invalid("trigger %q is enabled but task %q is disabled; enable the task or set enabled: false on the trigger", tr.Spec.Name, tr.TaskName).
				Because(RefusalTriggerOfDisabledTask, "trigger", tr.Spec.Name, "task", tr.TaskName)))
		}
	}
}

// Apply converges the store to doc in one transaction: every object of
// the file is published, with one publish time, or none is. It validates
// everything first; a failure after that (a concurrent writer, a lost
// database) leaves the store as it was, and the error says so.
func Apply(ctx context.Context, svc catalog.Service, doc *Document, newID func() string) ([]Result, error) {
	return Publish(ctx, svc, doc, newID, Options{})
}

// Audited is Apply by actor that also records what changed in the same
// transaction (catalog.Auditor), when anything does. A store whose
// transaction cannot record it publishes nothing: FailedPrecondition.
func Audited(ctx context.Context, svc catalog.Service, doc *Document, newID func() string, actor string) ([]Result, error) {
	return Publish(ctx, svc, doc, newID, Options{Actor: actor, Summarized: true})
}

// Options are what an apply may ask beyond converging the file.
type Options struct {
	// Actor is who applies: an apply that archives the project or makes
	// it active again records it in the audit trail (recordStatus).
	Actor string
	// Summarized also records Actor with what changed (Audited).
	Summarized bool
	// IfMatch, when not nil, are the project revisions (SpecRevision) the
	// apply may publish over, "*" any: the project's revision is read in
	// the publishing transaction, and a project at none of them is
	// refused PreconditionFailed (RefusalSpecChanged), nothing written.
	IfMatch []string
	// IfNoneMatch, when set, lets the apply only create its project: a
	// project of that name read in the publishing transaction refuses it
	// PreconditionFailed (RefusalProjectExists) naming its revision,
	// nothing written. It is not given with IfMatch (the API refuses both).
	IfNoneMatch bool
	// CreateOnly refuses, in the publishing transaction, a file that would
	// change anything that exists (CheckCreateOnly), nothing written.
	CreateOnly bool
}

// Publish is Apply with o.
func Publish(ctx context.Context, svc catalog.Service, doc *Document, newID func() string, o Options) ([]Result, error) {
	if err := Check(doc, svc.NowMs()); err != nil {
		return nil, err
	}
	var out []Result
	err := svc.Store.Publish(ctx, func(tx catalog.Tx) error {
		stale := checkRevision(ctx, tx, doc.Project, o.IfMatch)
		if stale == nil && o.IfNoneMatch {
			stale = checkAbsent(ctx, tx, doc.Project)
		}
		if stale != nil && !Stale(stale) {
			return stale
		}
		var err error
		out, err = converge(ctx, svc, tx, doc, newID)
		if stale != nil {
			return alreadyPublished(stale, out, err)
		}
		if err == nil && o.CreateOnly {
			err = CheckCreateOnly(doc.Project, out)
		}
		if err == nil {
			err = recordStatus(ctx, tx, doc.Project, out, o.Actor)
		}
		if err != nil || !o.Summarized {
			return err
		}
		summary := Summary(out)
		if summary == "" {
			return nil
		}
		a, ok := tx.(catalog.Auditor)
		if !ok {
			return qlerror.New(qlerror.FailedPrecondition, "this store cannot record who publishes; publish with `ql apply` on the server's host")
		}
		return a.AuditPublish(ctx, o.Actor, doc.Project, summary)
	})
	switch {
	case errors.Is(err, errNothingToPublish):
		return out, nil
	case qlerror.Is(err, qlerror.Unavailable):
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "%s: the outcome is unknown; apply the file again (it converges)", doc.File).
			Because(RefusalOutcomeUnknown, "file", doc.File)
	// A conflict the store gave no reason of its own is a concurrent
	// writer's: a head moved between the file's read and its write, or
	// serialization races lost until the retries ran out. One with a
	// reason keeps it, so its own sentence is shown.
	case qlerror.Is(err, qlerror.Conflict) && qlerror.ReasonOf(err) == "":
		return nil, qlerror.Wrap(qlerror.Conflict, err, "%s: nothing was applied", doc.File).Because(RefusalWriteConflict, "file", doc.File)
	case err != nil:
		return nil, qlerror.Wrap(qlerror.CodeOf(err), err, "%s: nothing was applied", doc.File)
	}
	return out, nil
}

// errNothingToPublish rolls back the transaction of an apply made over a
// project revision that has moved, when the file changes nothing there
// (alreadyPublished): the apply answers its results, every one unchanged.
var errNothingToPublish = qlerror.New(qlerror.Internal, "the file changes nothing in its project")

// alreadyPublished is what the transaction of an apply over a revision
// the project is no longer at (stale) returns, given what converging the
// file there did (results, or err): the refusal, or errNothingToPublish,
// which rolls back whatever converging touched.
func alreadyPublished(stale error, results []Result, err error) error {
	if err := StaleUnlessPublished(stale, results, err); err != nil {
		return err
	}
	return errNothingToPublish
}

// StaleUnlessPublished is the answer of an apply (or its dry run) over a
// project revision that has moved (or only creating a project that
// exists), stale being its refusal (Stale; nil: it has not), given what converging the file does there (results,
// or err): nil when that is nothing, for the file then holds what is
// published — typically the apply's own change, asked again after its
// answer was lost, whose publish moved the revision — so it answers every
// object unchanged; else stale, since the project moved under the change.
func StaleUnlessPublished(stale error, results []Result, err error) error {
	if stale != nil && (err != nil || Summary(results) != "") {
		return stale
	}
	return nil
}

// Summary names the objects results create or update ("created task
// hello; updated trigger tick (cron.expression)"); "" when nothing changes.
func Summary(results []Result) string {
	var parts []string
	for _, r := range results {
		if r.Change != catalog.Created && r.Change != catalog.Updated {
			continue
		}
		s := fmt.Sprintf("%s %s %s", r.Change, r.Kind, r.Name)
		if len(r.Fields) > 0 {
			s += " (" + strings.Join(r.Fields, ", ") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// Plan is what Apply would do, read through r and writing nothing. A nil
// r is a database that does not exist yet: everything would be created.
func Plan(ctx context.Context, svc catalog.Service, r catalog.Reader, doc *Document, newID func() string) ([]Result, error) {
	if err := Check(doc, svc.NowMs()); err != nil {
		return nil, err
	}
	return converge(ctx, svc, &dryTx{r: r, status: map[string]project.Status{}}, doc, newID)
}

// converge reads what the store holds under the file's names and publishes
// the difference through tx, tasks before the triggers pinning them.
func converge(ctx context.Context, svc catalog.Service, tx catalog.Tx, doc *Document, newID func() string) ([]Result, error) {
	if err := checkSecretProjects(doc); err != nil {
		return nil, err
	}
	if err := checkProjectExpected(ctx, tx, doc); err != nil {
		return nil, err
	}
	proj, change, fields, err := convergeProject(ctx, tx, doc, newID)
	if err != nil {
		return nil, err
	}
	if err := checkRuleScopes(ctx, tx, proj.ID, change == catalog.Created, doc); err != nil {
		return nil, err
	}
	out := make([]Result, 0, 1+len(doc.Tasks)+len(doc.Triggers))
	projResult := Result{Kind: "project", Name: proj.Name, Change: change, Fields: fields}
	if change != catalog.Created && proj.Status == project.Archived && slices.Contains(fields, "status "+string(project.Active)+" → "+string(project.Archived)) {
		projResult.Runs = ArchivedRuns
	}
	out = append(out, projResult)
	tasks, triggers := map[string]task.Revision{}, map[string]trigger.Revision{}
	if change != catalog.Created {
		names := make([]string, len(doc.Tasks))
		for i, td := range doc.Tasks {
			names[i] = td.Spec.Name
		}
		if tasks, err = tx.TasksByName(ctx, proj.ID, names); err != nil {
			return nil, err
		}
		names = make([]string, len(doc.Triggers))
		for i, tr := range doc.Triggers {
			names[i] = tr.Spec.Name
		}
		if triggers, err = tx.TriggersByName(ctx, proj.ID, names); err != nil {
			return nil, err
		}
	}
	if err := checkExpected(doc, tasks, triggers); err != nil {
		return nil, err
	}
	// archiving: this very apply archives the project (or creates it
	// archived), so a refused publish of its objects is the file's own doing.
	archiving := proj.Status != project.Active && (change == catalog.Created || slices.ContainsFunc(fields, func(f string) bool { return strings.HasPrefix(f, "status ") }))
	pinned, res, err := convergeTasks(ctx, svc, tx, proj.ID, doc, archiving, tasks, newID)
	if err != nil {
		return nil, err
	}
	out = append(out, res...)
	res, err = convergeTriggers(ctx, svc, tx, proj.ID, doc, archiving, pinned, triggers, newID)
	if err != nil {
		return nil, err
	}
	out = append(out, res...)
	if err := convergeTitles(ctx, tx, proj.ID, change == catalog.Created, doc, out[1:1+len(doc.Tasks)], out[1+len(doc.Tasks):]); err != nil {
		return nil, err
	}
	res, err = followTasks(ctx, svc, tx, proj.ID, doc, tasks, pinned)
	if err != nil {
		return nil, err
	}
	return append(out, res...), nil
}

// followTasks publishes, for each task this file changes, a revision of
// every trigger of it the file leaves out, the same but pinned to the
// task's new revision. A trigger is taken only while it pins its task's
// current revision: left behind, it would never fire again, silently,
// while the file's note says the triggers it leaves out keep running. An
// enabled trigger of a task the file disables stays behind (an enabled
// trigger may not pin a disabled task): it stops with its task, which is
// what disabling the task asks. before holds the tasks' revisions read
// before the file's were published, pinned the ones the file leaves.
func followTasks(ctx context.Context, svc catalog.Service, tx catalog.Tx, projectID string, doc *Document, before, pinned map[string]task.Revision) ([]Result, error) {
	next := map[string]task.Revision{}
	for name, cur := range before {
		if pin := pinned[name]; pin.Revision != cur.Revision {
			next[cur.TaskID] = pin
		}
	}
	if len(next) == 0 {
		return nil, nil
	}
	names, err := tx.TriggerNamesOfTasks(ctx, projectID, slices.Sorted(maps.Keys(next)))
	if err != nil {
		return nil, err
	}
	names = slices.DeleteFunc(names, func(name string) bool {
		return slices.ContainsFunc(doc.Triggers, func(t TriggerDoc) bool { return t.Spec.Name == name })
	})
	if len(names) == 0 {
		return nil, nil
	}
	current, err := tx.TriggersByName(ctx, projectID, names)
	if err != nil {
		return nil, err
	}
	var params []catalog.TriggerPublishParams
	var out []Result
	for _, name := range names {
		cur, ok := current[name]
		pin := next[cur.TaskID]
		if !ok || cur.TaskRevision == pin.Revision || (cur.Spec.Enabled && !pin.Spec.Enabled) {
			continue
		}
		digest := trigger.ContentDigest(projectID, cur.TriggerID, pin.TaskID, pin.Revision, pin.ContentDigest, cur.Spec)
		p, err := svc.TriggerParams(projectID, cur.TriggerID, pin, cur.Revision, mutationID("trigger", cur.Revision, digest), cur.Spec)
		if err != nil {
			return nil, qlerror.Wrap(qlerror.CodeOf(err), err, "trigger %q, which follows task revision %d the file publishes", name, pin.Revision)
		}
		params = append(params, p)
		out = append(out, Result{Kind: "trigger", Name: name, Change: catalog.Updated, Revision: p.Revision.Revision, Fields: []string{"taskRevision"}})
	}
	if len(params) == 0 {
		return nil, nil
	}
	res, err := tx.TriggersPublish(ctx, params)
	var item *catalog.ItemError
	if errors.As(err, &item) && item.Index >= 0 && item.Index < len(out) {
		return nil, qlerror.Wrap(qlerror.CodeOf(item.Err), item.Err, "trigger %q, which follows the task revision the file publishes", out[item.Index].Name)
	}
	if err != nil {
		return nil, err
	}
	for j, r := range res {
		out[j].Revision = r.Revision
	}
	return out, nil
}

func convergeProject(ctx context.Context, tx catalog.Tx, doc *Document, newID func() string) (project.Project, catalog.Change, []string, error) {
	p, err := tx.ProjectByName(ctx, doc.Project)
	change := catalog.Updated
	notifications := p.Notifications
	if doc.HasNotifications {
		notifications = doc.Notifications.Encode()
	}
	// A file without status: leaves the project's as it is; only a file
	// saying active reactivates an archived project.
	status := p.Status
	if doc.Status != "" {
		status = doc.Status
	}
	var fields []string
	switch {
	case qlerror.Is(err, qlerror.NotFound):
		if status == "" {
			status = project.Active
		}
		p, change = project.Project{ID: newID(), Name: doc.Project, Status: status, Notifications: notifications, Title: doc.Title, MaxRunning: doc.MaxRunning, Env: doc.Env}, catalog.Created
		// Said, so that a dry run's "would create" does not read as a bare
		// name: the notifications are the project's own part of the file.
		if doc.HasNotifications && !doc.Notifications.Empty() {
			fields = append(fields, "notifications")
		}
		if len(doc.Env) > 0 {
			fields = append(fields, envChanges(nil, doc.Env))
		}
	case err != nil:
		return p, "", nil, err
	case p.Status == status && p.Notifications == notifications && p.Title == doc.Title && p.MaxRunning == doc.MaxRunning && slices.Equal(p.Env, doc.Env):
		return p, catalog.Unchanged, nil, nil
	default:
		if p.Title != doc.Title {
			fields = append(fields, "title")
		}
		if p.MaxRunning != doc.MaxRunning {
			// From and to, so that a dry run says whether the cap rises,
			// falls, comes or goes.
			fields = append(fields, "maxRunning "+capText(p.MaxRunning)+" → "+capText(doc.MaxRunning))
		}
		if !slices.Equal(p.Env, doc.Env) {
			fields = append(fields, envChanges(p.Env, doc.Env))
			if err := otherTasksFit(ctx, tx, doc); err != nil {
				return p, "", nil, err
			}
		}
		if p.Status != status {
			// From and to, so that a dry run says which way the
			// project's triggers would go (stop, or start again).
			fields = append(fields, "status "+string(p.Status)+" → "+string(status))
		}
		if p.Notifications != notifications {
			fields = append(append(fields, "notifications"), ruleChanges(p.Notifications, notifications)...)
		}
		p.Status, p.Notifications, p.Title, p.MaxRunning, p.Env = status, notifications, doc.Title, doc.MaxRunning, doc.Env
	}
	if _, err := tx.ProjectSave(ctx, p); err != nil {
		return p, "", nil, err
	}
	return p, change, fields, nil
}

// capText is a project's maxRunning as a change of it says it.
func capText(n int) string {
	if n == 0 {
		return "none"
	}
	return strconv.Itoa(n)
}

// convergeTasks publishes every task whose content differs from its
// current revision and returns the revision each trigger pins, by name.
func convergeTasks(ctx context.Context, svc catalog.Service, tx catalog.Tx, projectID string, doc *Document, archiving bool, current map[string]task.Revision, newID func() string) (map[string]task.Revision, []Result, error) {
	pinned := make(map[string]task.Revision, len(doc.Tasks))
	out := make([]Result, len(doc.Tasks))
	var params []catalog.TaskPublishParams
	var at []int
	refused := &found{}
	for i, td := range doc.Tasks {
		out[i] = Result{Kind: "task", Name: td.Spec.Name}
		cur, ok := current[td.Spec.Name]
		taskID, expected := cur.TaskID, cur.Revision
		if !ok {
			taskID, expected = newID(), 0
		}
		digest := task.ContentDigest(projectID, taskID, td.Spec)
		if ok && cur.ContentDigest == digest {
			out[i].Change, out[i].Revision = catalog.Unchanged, cur.Revision
			pinned[td.Spec.Name] = cur
			continue
		}
		p, err := svc.TaskParams(projectID, taskID, expected, mutationID("task", expected, digest), td.Spec)
		if err != nil {
			refused.add(taskErr(doc, i, err))
			continue
		}
		params, at = append(params, p), append(at, i)
		pinned[td.Spec.Name] = p.Revision
		out[i].Change, out[i].Revision = changeOf(expected), p.Revision.Revision
		if ok {
			out[i].Fields = changedFields(cur.Spec.Normalize(), p.Revision.Spec)
		}
	}
	if err := refused.err(doc.File); err != nil {
		return nil, nil, err
	}
	if len(params) == 0 {
		return pinned, out, nil
	}
	res, err := tx.TasksPublish(ctx, params)
	var item *catalog.ItemError
	if errors.As(err, &item) && item.Index >= 0 && item.Index < len(at) {
		return nil, nil, taskErr(doc, at[item.Index], archivingErr(doc, archiving, out[at[item.Index]], item.Err))
	}
	if err != nil {
		return nil, nil, err
	}
	for j, r := range res {
		rev := params[j].Revision
		rev.Revision, rev.CreatedAtMs = r.Revision, r.CreatedAtMs
		pinned[rev.Spec.Name] = rev
		out[at[j]].Revision = r.Revision
	}
	return pinned, out, nil
}

// convergeTriggers publishes every trigger whose content (or pinned task
// revision) differs from its current revision.
func convergeTriggers(ctx context.Context, svc catalog.Service, tx catalog.Tx, projectID string, doc *Document, archiving bool, pinned map[string]task.Revision, current map[string]trigger.Revision, newID func() string) ([]Result, error) {
	out := make([]Result, len(doc.Triggers))
	var params []catalog.TriggerPublishParams
	var at []int
	// Every trigger refused before the store is asked is reported: a file
	// moving several triggers to other tasks says so of each.
	refused := &found{}
	for i, tr := range doc.Triggers {
		out[i] = Result{Kind: "trigger", Name: tr.Spec.Name}
		pin := pinned[tr.TaskName]
		cur, ok := current[tr.Spec.Name]
		triggerID, expected := cur.TriggerID, cur.Revision
		if !ok {
			triggerID, expected = newID(), 0
		}
		if ok && cur.TaskID != pin.TaskID {
			refused.add(triggerErr(doc, i, qlerror.New(qlerror.FailedPrecondition, "is bound to another task; a trigger never moves to another task — give the new binding a new trigger name").
				Because(RefusalTriggerRebound, "trigger", tr.Spec.Name)))
			continue
		}
		digest := trigger.ContentDigest(projectID, triggerID, pin.TaskID, pin.Revision, pin.ContentDigest, tr.Spec)
		if ok && cur.ContentDigest == digest {
			out[i].Change, out[i].Revision = catalog.Unchanged, cur.Revision
			continue
		}
		p, err := svc.TriggerParams(projectID, triggerID, pin, expected, mutationID("trigger", expected, digest), tr.Spec)
		if err != nil {
			refused.add(triggerErr(doc, i, err))
			continue
		}
		params, at = append(params, p), append(at, i)
		out[i].Change, out[i].Revision = changeOf(expected), p.Revision.Revision
		if ok {
			out[i].Fields = changedFields(cur.Spec, p.Revision.Spec)
			if cur.TaskRevision != pin.Revision {
				out[i].Fields = append(out[i].Fields, "taskRevision")
			}
		}
	}
	if err := refused.err(doc.File); err != nil {
		return nil, err
	}
	if len(params) == 0 {
		return out, nil
	}
	res, err := tx.TriggersPublish(ctx, params)
	var item *catalog.ItemError
	if errors.As(err, &item) && item.Index >= 0 && item.Index < len(at) {
		return nil, triggerErr(doc, at[item.Index], archivingErr(doc, archiving, out[at[item.Index]], item.Err))
	}
	if err != nil {
		return nil, err
	}
	for j, r := range res {
		out[at[j]].Revision = r.Revision
	}
	return out, nil
}

// archivingErr words the store's refusal to publish to an archived project
// when it is this very file that archives it (archiving): "project is
// archived; set its status to active" reads as if the file said active, and
// hides that the refusal is about an object the file also creates or
// changes (often a trigger disabled from the command line that the file
// enables again). A project archived before keeps the store's words.
func archivingErr(doc *Document, archiving bool, r Result, err error) error {
	if !archiving || qlerror.ReasonOf(err) != catalog.RefusalProjectArchived {
		return err
	}
	what := "creates this " + r.Kind
	if r.Change != catalog.Created {
		what = fmt.Sprintf("changes this %s (%s)", r.Kind, strings.Join(r.Fields, ", "))
	}
	fix := fmt.Sprintf("make the %s in the file as it is published", r.Kind)
	if r.Kind == "trigger" {
		fix += fmt.Sprintf(" (`ql triggers show %s/%s`)", doc.Project, r.Name)
	}
	if r.Change == catalog.Created {
		fix = "leave it out of the file"
	}
	return qlerror.New(qlerror.FailedPrecondition, "this file archives project %q and %s in the same apply, and an archived project takes no new revision: "+
		"%s, or apply the change with status: active first and archive after", doc.Project, what, fix).
		Because(RefusalArchivingWithChanges, "kind", r.Kind, "name", r.Name, "project", doc.Project, "fields", strings.Join(r.Fields, ", "))
}

// taskErr is err, a refusal to publish task i of doc, at the task's line
// and about it. Its words start with the task, as a field's mistake's do,
// but it is no mistake in a field, so it has no lead (LocatedError.Lead).
func taskErr(doc *Document, i int, err error) *LocatedError {
	td := doc.Tasks[i]
	return about(doc.File, td.Line, Entry{Kind: "task", Index: i, Name: td.Spec.Name}, qlerror.Wrap(qlerror.CodeOf(err), err, "task %q", td.Spec.Name))
}

// triggerErr is err, a refusal to publish trigger i of doc, as taskErr.
func triggerErr(doc *Document, i int, err error) *LocatedError {
	tr := doc.Triggers[i]
	return about(doc.File, tr.Line, Entry{Kind: "trigger", Index: i, Name: tr.Spec.Name}, qlerror.Wrap(qlerror.CodeOf(err), err, "trigger %q", tr.Spec.Name))
}

// mutationID is unique per (object, transition): re-applying the same file
// after a lost reply replays the same id with identical content, which the
// store accepts; a different file state yields a different id.
func mutationID(kind string, expected int64, digest string) string {
	return fmt.Sprintf("apply:%s:%d:%s", kind, expected, digest)
}

func changeOf(expected int64) catalog.Change {
	if expected == 0 {
		return catalog.Created
	}
	return catalog.Updated
}
