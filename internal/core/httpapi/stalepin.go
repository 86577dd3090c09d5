package httpapi

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// pinRefusal is err, when the store refused a manual Run of the trigger
// triggerID as pinning an older revision of its task, worded as the
// console words it (apply.PinRefusal): both revisions, or that the task
// is disabled, and what publishes the trigger with its task again. Any
// other error, or one whose trigger or definitions cannot be read, is
// returned as it is.
func (a *api) pinRefusal(ctx context.Context, triggerID string, err error) error {
	if reason := qlerror.ReasonOf(err); (reason != schedule.RefusalStalePin && reason != schedule.RefusalRepublishing) || a.Detail == nil || a.Export == nil {
		return err
	}
	d, derr := a.Detail.TriggerDetail(ctx, triggerID, 1)
	if derr != nil {
		return err
	}
	return apply.PinRefusal(ctx, a.Export, d.TriggerStatus, err)
}
