package loop

import (
	"context"
	"time"
)

// Outliving is a context that ends grace after ctx ends (or when its
// cancel is called). A round whose statement the database may have
// committed as the stop came uses it to read the answer and say what it
// did, instead of leaving a committed change unreported; the grace keeps
// the stop bounded, and should stay under the loop's StopTimeout.
func Outliving(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	out, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stopWatching := context.AfterFunc(ctx, func() { time.AfterFunc(grace, cancel) })
	return out, func() {
		stopWatching()
		cancel()
	}
}
