package apply

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// The refusals of a run now or a backfill of a trigger left on an older
// revision of its task, worded as what they are: task, trigger and, for a
// task enabled still, the task's revision and the one the trigger pins.
const (
	RefusalTaskDisabled    qlerror.Reason = "task_disabled"
	RefusalTaskRepublished qlerror.Reason = "task_republished"
)

// PinRefusal is err, when the store refused a manual Run of trigger t as
// pinning an older revision of its task than the task's current one (or,
// as a store before it said, as being republished), worded as what that
// is: no passing state (a definitions file writes a task and the triggers
// it names, and carries the others along, in one transaction) but a task
// published again without t, so nothing of t runs until t is published
// again with it, naming both revisions;
// and, when the task's current revision is disabled, that the task is,
// and that only its definitions file enables it. Both revisions are read
// from r in one snapshot. Any other error, or one whose definitions cannot
// be read, is returned as it is. The words name no profile's parts: every
// binary and the console say them.
func PinRefusal(ctx context.Context, r catalog.DefinitionsReader, t schedule.TriggerStatus, err error) error {
	if reason := qlerror.ReasonOf(err); (reason != schedule.RefusalStalePin && reason != schedule.RefusalRepublishing) || r == nil {
		return err
	}
	d, derr := r.ProjectDefinitions(ctx, t.ProjectName, max(MaxTasks, MaxTriggers)+1)
	if derr != nil {
		return err
	}
	var pinned int64
	for _, tr := range d.Triggers {
		if tr.TriggerID == t.TriggerID {
			pinned = tr.TaskRevision
		}
	}
	for _, tk := range d.Tasks {
		switch {
		case tk.TaskID != t.TaskID || pinned == 0 || tk.Revision == pinned:
		case !tk.Spec.Enabled:
			return qlerror.New(qlerror.FailedPrecondition, "task %s is disabled, so nothing of trigger %s runs, run now and backfill included; "+
				"only its definitions file enables a task: set enabled: true on task %s in the file and apply it with the trigger (`ql apply -f FILE`, or on the Definitions page of the console)",
				tk.Spec.Name, t.Name, tk.Spec.Name).Because(RefusalTaskDisabled, "task", tk.Spec.Name, "trigger", t.Name)
		default:
			return qlerror.New(qlerror.FailedPrecondition, "task %s was published again (revision %d) without trigger %s, which still pins its revision %d: "+
				"nothing of the trigger runs, run now and backfill included, until it is published again with its task; apply a definitions file naming both (`ql apply -f FILE`, or on the Definitions page of the console)",
				tk.Spec.Name, tk.Revision, t.Name, pinned).Because(RefusalTaskRepublished, "task", tk.Spec.Name, "trigger", t.Name, "revision", tk.Revision, "pinned", pinned)
		}
	}
	return err
}
