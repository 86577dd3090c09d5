package apply

import (
	"context"
	"fmt"

	"github.com/qinglong/qinglong/internal/catalog"
	"github.com/qinglong/qinglong/internal/project"
	"github.com/qinglong/qinglong/internal/qlerror"
	"github.com/qinglong/qinglong/internal/task"
	"github.com/qinglong/qinglong/internal/trigger"
)

// Result is what applying did to one object.
type Result struct {
	Kind     string // project, task, trigger
	Name     string
	Change   catalog.Change
	Revision int64
}

func (r Result) String() string {
	if r.Revision > 0 {
		return fmt.Sprintf("%s %s: %s (revision %d)", r.Kind, r.Name, r.Change, r.Revision)
	}
	return fmt.Sprintf("%s %s: %s", r.Kind, r.Name, r.Change)
}

// Check validates cross-references and cron expressions without a store:
// every trigger names a task of the file, names are unique, an enabled
// trigger does not point at a disabled task, and each expression fires.
func Check(doc *Document, nowMs int64) error {
	p := parser{file: doc.File}
	tasks := map[string]TaskDoc{}
	for _, t := range doc.Tasks {
		if _, dup := tasks[t.Spec.Name]; dup {
			return qlerror.New(qlerror.Invalid, "%s:%d: task %q is defined twice", doc.File, t.Line, t.Spec.Name)
		}
		tasks[t.Spec.Name] = t
	}
	seen := map[string]bool{}
	for _, tr := range doc.Triggers {
		if seen[tr.Spec.Name] {
			return qlerror.New(qlerror.Invalid, "%s:%d: trigger %q is defined twice", doc.File, tr.Line, tr.Spec.Name)
		}
		seen[tr.Spec.Name] = true
		t, ok := tasks[tr.TaskName]
		if !ok {
			return qlerror.New(qlerror.Invalid, "%s:%d: trigger %q: trigger.task %q is not a task of this file", doc.File, tr.Line, tr.Spec.Name, tr.TaskName)
		}
		if tr.Spec.Enabled && !t.Spec.Enabled {
			return qlerror.New(qlerror.Invalid, "%s:%d: trigger %q is enabled but task %q is disabled; enable the task or set enabled: false on the trigger", doc.File, tr.Line, tr.Spec.Name, tr.TaskName)
		}
		if err := tr.Spec.Validate(nowMs); err != nil {
			return qlerror.New(qlerror.Invalid, "%s:%d: trigger %q: %s", p.file, tr.Line, tr.Spec.Name, qlMsg(err))
		}
	}
	return nil
}

// Apply converges the store to doc. newID allocates ids for new objects.
// It validates everything first; a failure after that (a concurrent writer,
// a lost database) stops at the first failing object and reports what was
// already applied.
func Apply(ctx context.Context, svc catalog.Service, doc *Document, newID func() string) ([]Result, error) {
	if err := Check(doc, svc.NowMs()); err != nil {
		return nil, err
	}
	var out []Result
	proj, change, err := applyProject(ctx, svc.Store, doc, newID)
	if err != nil {
		return out, err
	}
	out = append(out, Result{Kind: "project", Name: proj.Name, Change: change})
	current := map[string]task.Revision{}
	for _, td := range doc.Tasks {
		rev, res, err := applyTask(ctx, svc, proj.ID, td, newID)
		if err != nil {
			return out, qlerror.Wrap(qlerror.CodeOf(err), err, "%s:%d: task %q", doc.File, td.Line, td.Spec.Name)
		}
		current[td.Spec.Name] = rev
		out = append(out, res)
	}
	for _, tr := range doc.Triggers {
		res, err := applyTrigger(ctx, svc, proj.ID, current[tr.TaskName], tr, newID)
		if err != nil {
			return out, qlerror.Wrap(qlerror.CodeOf(err), err, "%s:%d: trigger %q", doc.File, tr.Line, tr.Spec.Name)
		}
		out = append(out, res)
	}
	return out, nil
}

func applyProject(ctx context.Context, st catalog.Store, doc *Document, newID func() string) (project.Project, catalog.Change, error) {
	p, err := st.ProjectByName(ctx, doc.Project)
	switch {
	case qlerror.Is(err, qlerror.NotFound):
		p = project.Project{ID: newID(), Name: doc.Project, Status: doc.Status}
	case err != nil:
		return p, "", err
	case p.Status == doc.Status:
		return p, catalog.Unchanged, nil
	default:
		p.Status = doc.Status
	}
	change, err := st.ProjectSave(ctx, p)
	return p, change, err
}

func applyTask(ctx context.Context, svc catalog.Service, projectID string, td TaskDoc, newID func() string) (task.Revision, Result, error) {
	res := Result{Kind: "task", Name: td.Spec.Name}
	cur, err := svc.Store.TaskByName(ctx, projectID, td.Spec.Name)
	taskID, expected := "", int64(0)
	switch {
	case qlerror.Is(err, qlerror.NotFound):
		taskID = newID()
	case err != nil:
		return cur, res, err
	default:
		if cur.ContentDigest == task.ContentDigest(projectID, cur.TaskID, td.Spec) {
			res.Change, res.Revision = catalog.Unchanged, cur.Revision
			return cur, res, nil
		}
		taskID, expected = cur.TaskID, cur.Revision
	}
	digest := task.ContentDigest(projectID, taskID, td.Spec)
	rev, _, err := svc.PublishTask(ctx, projectID, taskID, expected, mutationID("task", expected, digest), td.Spec)
	if err != nil {
		return rev, res, err
	}
	res.Change, res.Revision = changeOf(expected), rev.Revision
	return rev, res, nil
}

func applyTrigger(ctx context.Context, svc catalog.Service, projectID string, pinned task.Revision, tr TriggerDoc, newID func() string) (Result, error) {
	res := Result{Kind: "trigger", Name: tr.Spec.Name}
	cur, err := svc.Store.TriggerByName(ctx, projectID, tr.Spec.Name)
	triggerID, expected := "", int64(0)
	switch {
	case qlerror.Is(err, qlerror.NotFound):
		triggerID = newID()
	case err != nil:
		return res, err
	default:
		if cur.TaskID != pinned.TaskID {
			return res, qlerror.New(qlerror.FailedPrecondition, "is bound to another task; a trigger never moves to another task — give the new binding a new trigger name")
		}
		want := trigger.ContentDigest(projectID, cur.TriggerID, pinned.TaskID, pinned.Revision, pinned.ContentDigest, tr.Spec)
		if cur.ContentDigest == want {
			res.Change, res.Revision = catalog.Unchanged, cur.Revision
			return res, nil
		}
		triggerID, expected = cur.TriggerID, cur.Revision
	}
	digest := trigger.ContentDigest(projectID, triggerID, pinned.TaskID, pinned.Revision, pinned.ContentDigest, tr.Spec)
	rev, _, err := svc.PublishTrigger(ctx, projectID, triggerID, pinned, expected, mutationID("trigger", expected, digest), tr.Spec)
	if err != nil {
		return res, err
	}
	res.Change, res.Revision = changeOf(expected), rev.Revision
	return res, nil
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
