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

// RunGet is the store's read, its server_busy said with the limit: kept
// while the Runs holding a slot fill every slot, server_starting with a
// slot free, since the next dispatch starts the Run (run.Waiting.Bounded).
func (r servedRuns) RunGet(ctx context.Context, id string) (run.Detail, error) {
	d, err := r.Reader.RunGet(ctx, id)
	if err != nil || d.Waiting == nil {
		return d, err
	}
	w := d.Waiting.Bounded(r.concurrency)
	d.Waiting = &w
	return d, nil
}
