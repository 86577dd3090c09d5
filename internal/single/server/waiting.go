package server

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/run"
)

// servedRuns reads Runs as the server serving them says why a queued one
// waits: the store knows how many Runs hold a slot, the server how many
// slots it has (its --concurrency).
type servedRuns struct {
	run.Reader
	concurrency int
}

// RunGet is the store's read, its server_busy kept only while the Runs
// holding a slot fill every slot, with the limit they reach: with a slot
// free, the next dispatch starts the Run, which then waits for nothing.
func (r servedRuns) RunGet(ctx context.Context, id string) (run.Detail, error) {
	d, err := r.Reader.RunGet(ctx, id)
	if err != nil || d.Waiting == nil || d.Waiting.Reason != run.WaitServerBusy {
		return d, err
	}
	if d.Waiting.Running < r.concurrency {
		d.Waiting = nil
		return d, nil
	}
	w := *d.Waiting
	w.Concurrency = r.concurrency
	d.Waiting = &w
	return d, nil
}
