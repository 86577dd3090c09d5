package console

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// pinRefusal is err, when the store refused a manual Run of trigger t as
// being republished while t pins an older revision of its task, worded as
// what that is (apply.PinRefusal), as the API and the command line word
// it too.
func (c *Console) pinRefusal(ctx context.Context, t schedule.TriggerStatus, err error) error {
	if c.cfg.Export == nil {
		return err
	}
	return apply.PinRefusal(ctx, c.cfg.Export, t, err)
}
