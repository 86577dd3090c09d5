package catalog

import (
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// RefusalProjectArchived is the reason of a publish (an enable or disable
// included) to a project that is archived, as both adapters refuse it.
const RefusalProjectArchived qlerror.Reason = "publish_to_archived_project"

// RefusalProjectMissing is the reason of a read of a project by a name no
// project has (name), as both adapters refuse it.
const RefusalProjectMissing qlerror.Reason = "project_missing"

// ProjectMissing is the refusal of a read of a project by a name no
// project has: both adapters say it in these words, which name the way to
// create one (the API passes them on as they are).
func ProjectMissing(name string) error {
	return qlerror.New(qlerror.NotFound, "project %q does not exist; a definitions file that names it creates it: `ql apply -f FILE`", name).
		Because(RefusalProjectMissing, "name", name)
}

// The rules of a publish's fences, written once so that both adapters
// reject the same items with the same words; the adapters only read what
// the rules need, inside their transactions, and write what they allow.

// Stored is the revision a mutation id already wrote.
type Stored struct {
	Revision    int64
	Digest      string
	CreatedAtMs int64
}

// CheckReplay checks a publish against what its mutation id already wrote
// (kind is "task" or "trigger"): with identical content — same revision
// and digest — the replay answers with the original write; any drift is a
// MutationDrift error, because a mutation id names one request, so even the
// same content published over another expected revision is another
// request.
func CheckReplay(s Stored, kind, id, name, mutationID string, revision int64, contentDigest string) (PublishResult, error) {
	if s.Revision != revision || s.Digest != contentDigest {
		return PublishResult{}, qlerror.New(qlerror.MutationDrift,
			"mutation id %q was already applied to %s %q (%s) as revision %d, with other content or over another revision; use a new mutation id for a new change",
			mutationID, kind, name, id, s.Revision)
	}
	return PublishResult{Revision: s.Revision, CreatedAtMs: s.CreatedAtMs, Replayed: true}, nil
}

// PinnedTask is the task revision a trigger revision pins, as stored.
type PinnedTask struct {
	ProjectID string
	Digest    string
	Enabled   bool
}

// CheckPin enforces what a trigger revision may pin: an existing revision
// of its task (found), in its own project, with the pinned digest, and
// enabled if the trigger is — so a schedulable trigger always has
// something to run.
func CheckPin(r trigger.Revision, pinned PinnedTask, found bool) error {
	switch {
	case !found:
		return qlerror.New(qlerror.FailedPrecondition, "trigger %q pins task %s revision %d, which does not exist; publish the task first",
			r.Spec.Name, r.TaskID, r.TaskRevision)
	case pinned.ProjectID != r.ProjectID:
		return qlerror.New(qlerror.FailedPrecondition, "trigger %q pins task %s of project %s, not of its own project %s; pin a task of the trigger's project",
			r.Spec.Name, r.TaskID, pinned.ProjectID, r.ProjectID)
	case pinned.Digest != r.TaskContentDigest:
		return qlerror.New(qlerror.FailedPrecondition, "trigger %q pins task %s revision %d with digest %s, but that revision's digest is %s; re-read the task and publish again",
			r.Spec.Name, r.TaskID, r.TaskRevision, r.TaskContentDigest, pinned.Digest)
	case r.Spec.Enabled && !pinned.Enabled:
		return qlerror.New(qlerror.FailedPrecondition, "trigger %q is enabled but pins disabled task %s revision %d; enable the task or disable the trigger",
			r.Spec.Name, r.TaskID, r.TaskRevision)
	}
	return nil
}

// Head is the head of a task or trigger as a publish fences on it; Exists
// is false for an object not created yet. TaskID is a trigger's task.
type Head struct {
	Exists    bool
	ProjectID string
	TaskID    string
	Current   int64
}

// CheckTaskHead fences a task revision on its head: revision 1 creates the
// task, any other revision advances an existing head of the same project
// from exactly the revision before it.
func CheckTaskHead(r task.Revision, h Head) error {
	return checkHead("task", r.TaskID, r.Spec.Name, r.ProjectID, r.Revision, h)
}

// CheckTriggerHead is CheckTaskHead for a trigger revision, which besides
// never moves its trigger to another task: a trigger's schedule history
// belongs to one task.
func CheckTriggerHead(r trigger.Revision, h Head) error {
	if h.Exists && h.ProjectID == r.ProjectID && h.TaskID != r.TaskID {
		return qlerror.New(qlerror.FailedPrecondition, "trigger %q is bound to task %s and can never move to task %s; create a new trigger instead",
			r.Spec.Name, h.TaskID, r.TaskID)
	}
	return checkHead("trigger", r.TriggerID, r.Spec.Name, r.ProjectID, r.Revision, h)
}

func checkHead(kind, id, name, projectID string, revision int64, h Head) error {
	expected := revision - 1
	switch {
	case !h.Exists && expected != 0:
		return qlerror.New(qlerror.NotFound, "%s %q (%s) does not exist; publish it with expected revision 0 to create it", kind, name, id)
	case h.Exists && h.ProjectID != projectID:
		return qlerror.New(qlerror.FailedPrecondition, "%s %q (%s) belongs to project %s, not %s; a %s never moves between projects",
			kind, name, id, h.ProjectID, projectID, kind)
	case h.Exists && h.Current != expected:
		return qlerror.New(qlerror.Conflict, "%s %q is at revision %d, not the expected %d; re-read it and publish again", kind, name, h.Current, expected)
	}
	return nil
}

// CheckTasksDistinct enforces that a batch publishes each task at most
// once: two revisions of one task in one transaction would both fence on
// the same head. The error is an *ItemError at the first repeat.
func CheckTasksDistinct(ps []TaskPublishParams) error {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.Revision.TaskID
	}
	return checkDistinct("task", ids)
}

// CheckTriggersDistinct is CheckTasksDistinct for triggers.
func CheckTriggersDistinct(ps []TriggerPublishParams) error {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.Revision.TriggerID
	}
	return checkDistinct("trigger", ids)
}

func checkDistinct(kind string, ids []string) error {
	first := make(map[string]int, len(ids))
	for i, id := range ids {
		if j, seen := first[id]; seen {
			return &ItemError{Index: i, Err: qlerror.New(qlerror.Invalid,
				"%s %s is published twice in one transaction (items %d and %d); publish each %s once per transaction", kind, id, j, i, kind)}
		}
		first[id] = i
	}
	return nil
}
