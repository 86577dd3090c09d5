package cli

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// Handover is an embedded database's mark of having been handed over
// (`export --with-state`): when, by whom, and the data directory the
// database is in.
type Handover struct {
	AtMs    int64
	Actor   string
	DataDir string
}

// refuseQueueingHandedOver refuses a command that would queue Runs (run
// now, a re-run, a backfill) on a database handed over: no server may run
// there until it is taken back, so the Runs would wait, unseen, to run
// late after a take-back, while the triggers run where the state was
// applied. It is refused rather than noted: what the user wants is a Run
// now, which only the target gives.
func refuseQueueingHandedOver(ctx context.Context, cmd *cobra.Command, b *Backend) error {
	if b.HandedOver == nil {
		return nil
	}
	h, handed, err := b.HandedOver(ctx)
	if err != nil || !handed {
		return err
	}
	at := time.UnixMilli(h.AtMs).UTC().Format(time.RFC3339)
	return qlerror.New(qlerror.FailedPrecondition,
		"the database of this data directory (%s) was handed over at %s (by %s, `export --with-state`): its triggers run where its state was applied, "+
			"so ask there, of that server or database; a Run queued here would wait, and run only after `%s` takes the database back "+
			"(take back only once no server of that target runs)",
		h.DataDir, at, h.Actor, suggest(cmd, "serve", "--take-back", "--data-dir", h.DataDir)).
		Because(run.RefusalHandedOver, "dataDir", h.DataDir, "at", at)
}
