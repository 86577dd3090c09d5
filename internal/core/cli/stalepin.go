package cli

import (
	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/triggerref"
)

// pinHint is err, when the database refused a manual Run of the trigger
// triggerID as pinning an older revision of its task, worded as the
// console and the API word it (apply.PinRefusal): both revisions, or that
// the task is disabled, and what publishes the trigger with its task
// again. Over --api-url the server has worded it already. Any other
// error, or one whose trigger or definitions cannot be read, is returned
// as it is.
func pinHint(cmd *cobra.Command, b *Backend, triggerID string, err error) error {
	if reason := qlerror.ReasonOf(err); (reason != schedule.RefusalStalePin && reason != schedule.RefusalRepublishing) || b.Definitions == nil {
		return err
	}
	t, ok, rerr := triggerref.ByID(cmd.Context(), b.Triggers, "", triggerID)
	if rerr != nil || !ok {
		return err
	}
	return apply.PinRefusal(cmd.Context(), b.Definitions, t, err)
}
