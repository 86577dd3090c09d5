package cli

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/view"
)

// waitsOf is why Run id, just queued by a run now or a re-run, waits for a
// worker, in the shape the API's answer carries it as waits, for -o json;
// nil when it does not (or no Run was queued). Over --api-url it is the
// server's own answer; on the database it is read back from the Run as the
// server reads it for that answer, so a script gets one document either
// way. A Run that cannot be read back has none: it is queued either way.
func waitsOf(ctx context.Context, b *Backend, id string) *view.Waiting {
	if id == "" {
		return nil
	}
	if b.api != nil {
		if w, ok := b.api.waits[id]; ok {
			return view.NewWaiting(w)
		}
	}
	if b.Runs == nil {
		return nil
	}
	d, err := b.Runs.RunGet(ctx, id)
	if err != nil || !d.Waiting.ForWantOfAWorker() {
		return nil
	}
	return view.NewWaiting(d.Waiting)
}
