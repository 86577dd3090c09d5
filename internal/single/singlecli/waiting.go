package singlecli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/single/server"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// localRuns reads Runs from the database file itself, beside whatever
// server serves it (or none), and says so when a queued Run waits because
// none does: the store knows what is in the database, only this reader
// can look for the server's lock and the record the server keeps beside
// it.
type localRuns struct {
	run.Reader
	layout server.Layout
	// handedOver reads the database's handover mark: with no server, a
	// handed-over database's queued Run waits for a take-back, not for a
	// plain serve, which is refused there.
	handedOver func(context.Context) (sqlitestore.Handover, bool, error)
}

// RunGet is the store's read, a queued Run's reason replaced by no_server
// when no server holds the data directory's lock: nothing will start it,
// whatever else it waits for, and the Runs the database says hold a slot
// are a stopped server's. With a server that holds it, the server's
// recorded --concurrency bounds the store's count as the server itself
// would (run.Waiting.Bounded); with none recorded yet, the count stays
// alone. A probe that fails (the lock file is not this user's to open)
// leaves the store's reason, which holds either way. With no server on a
// database handed over, no_server says so (run.Waiting.HandedOver).
func (r localRuns) RunGet(ctx context.Context, id string) (run.Detail, error) {
	d, err := r.Reader.RunGet(ctx, id)
	if err != nil || d.Run.State != run.Queued {
		return d, err
	}
	h, known, serving, err := server.Served(r.layout)
	switch {
	case err != nil:
	case !serving:
		w := &run.Waiting{Reason: run.WaitNoServer, DataDir: filepath.Dir(r.layout.DB), SingleNode: true}
		_, w.HandedOver, err = r.handedOver(ctx)
		if err != nil {
			return d, fmt.Errorf("read whether the database of %s was handed over: %w", w.DataDir, err)
		}
		d.Waiting = w
	case known && d.Waiting != nil:
		w := d.Waiting.Bounded(h.Concurrency)
		w.ServerPID, w.ServerStartedAtMs = h.PID, h.StartedAtMs
		d.Waiting = &w
	}
	return d, nil
}
