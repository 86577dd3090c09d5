package sqlitestore

import (
	"context"
	"database/sql"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

var (
	qMonitorBacklog  = query("monitor_backlog")
	qMonitorRunState = query("monitor_run_state")
	// qMonitorOldestQueued reads when the longest-waiting queued Run was
	// queued, apart from backfills', and when the longest-waiting
	// backfilled one was.
	qMonitorOldestQueued = query("monitor_oldest_queued")
)

var _ schedule.Monitor = (*Store)(nil)

// Monitor reads, in one read transaction at one reading of the injected
// clock, the due rows a take would return, the unfinished Runs per state,
// every count cut at limit, and when the longest-waiting queued Runs
// were queued (backfilled and other).
func (s *Store) Monitor(ctx context.Context, limit int) (schedule.MonitorSnapshot, error) {
	snap := schedule.MonitorSnapshot{NowMs: s.nowMs(), Runs: map[run.State]int{}}
	if limit < 1 || limit > schedule.MonitorLimit {
		return snap, qlerror.New(qlerror.Invalid, "monitor limit %d is outside 1–%d", limit, schedule.MonitorLimit)
	}
	err := s.read(ctx, "read monitoring counts", func(tx *txn) error {
		var oldest sql.NullInt64
		if err := tx.QueryRowContext(ctx, qMonitorBacklog, snap.NowMs, limit).Scan(&snap.Due, &oldest); err != nil {
			return err
		}
		snap.OldestDueAtMs = ptr(oldest)
		for _, st := range schedule.UnfinishedStates {
			var n int
			if err := tx.QueryRowContext(ctx, qMonitorRunState, string(st), limit).Scan(&n); err != nil {
				return err
			}
			snap.Runs[st] = n
		}
		var queued, backfill sql.NullInt64
		if err := tx.QueryRowContext(ctx, qMonitorOldestQueued).Scan(&queued, &backfill); err != nil {
			return err
		}
		snap.OldestQueuedAtMs, snap.OldestBackfillQueuedAtMs = ptr(queued), ptr(backfill)
		return nil
	})
	return snap, err
}
