package loop

import (
	"context"
	"time"
)

// Sleep waits d, or returns ctx's error as soon as ctx is done: the one
// wait every bounded pause (a retry's backoff, a wait for a due instant)
// uses, so none outlives its caller.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
