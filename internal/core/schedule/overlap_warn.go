package schedule

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/qinglong/qinglong/internal/core/plural"
)

// CodeOverlapCancelledUnstarted is the log code of an admission whose
// trigger's overlap policy, cancel_previous, cancelled an earlier Run of
// the trigger before it started.
const CodeOverlapCancelledUnstarted = "scheduler.overlap_cancelled_unstarted"

// OverlapWarnEvery is how often one trigger's cancels before a start are
// warned of while they go on. A trigger starving this way cancels a Run
// each period, every minute or more often; a warning each time would say
// nothing new, and one every five minutes (with the cancels held back in
// between) keeps it in view of an operator who watches the log.
const OverlapWarnEvery = 5 * time.Minute

// overlapCancels warns, for each trigger of cancelled (trigger id: the Runs
// cancel_previous cancelled before they started this round), at most once
// every OverlapWarnEvery, saying how many the round cancelled and how
// many earlier rounds did since the last warning (held_back); in between
// it says so at debug. One such cancel is the policy at work; the warning
// is for the operator who sees it every few minutes: the slots stay full,
// and every occurrence may be cancelled before it runs
// (docs/operations.md, "Overlap warnings").
func (d Diagnostics) overlapCancels(ctx context.Context, cancelled map[string]int) {
	ids := make([]string, 0, len(cancelled))
	for id := range cancelled {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		n := cancelled[id]
		again, held := d.Repeats.overlapCancelsAgain(id, n)
		level := slog.LevelWarn
		if again {
			level = slog.LevelDebug
		}
		attrs := append(d.attrs(CodeOverlapCancelledUnstarted), slog.String("trigger_id", id), slog.Int("cancelled", n))
		if held > 0 {
			attrs = append(attrs, slog.Int("held_back", held))
		}
		d.Log.Log(ctx, level, "overlap cancel_previous cancelled "+plural.Count(n, "Run", "Runs")+
			" of the trigger before it started: while the slots stay full, each occurrence can be cancelled before it runs", attrs...)
	}
}

// overlapCancelsAgain reports whether trigger id's cancels before a start
// were warned of less than OverlapWarnEvery ago, holding n back when they
// were; when they were not, it notes them warned of now and returns how
// many were held back since. A nil Repeats warns every time.
func (r *Repeats) overlapCancelsAgain(id string, n int) (again bool, heldBack int) {
	if r == nil {
		return false, 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return saidAgain(r.cancels, id, n, OverlapWarnEvery, r.now())
}
