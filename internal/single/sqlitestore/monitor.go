package sqlitestore

import (
	"context"
	"database/sql"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

var (
	qMonitorBacklog = query("monitor_backlog")
	// qMonitorBacklogInProjects is the backlog of a bound console user's
	// projects.
	qMonitorBacklogInProjects = query("monitor_backlog_in_projects")
	qMonitorRunState          = query("monitor_run_state")
	// qMonitorOldestQueued reads when the longest-waiting queued Run was
	// queued, apart from backfills', and when the longest-waiting
	// backfilled one was.
	qMonitorOldestQueued = query("monitor_oldest_queued")
)

var (
	_ schedule.Monitor       = (*Store)(nil)
	_ schedule.BacklogReader = (*Store)(nil)
)

// Backlog reads the due rows a take would return, as Monitor does, of the
// projects named in alone when in is not empty, counted up to limit.
func (s *Store) Backlog(ctx context.Context, limit int, in []string) (schedule.Backlog, error) {
	var b schedule.Backlog
	if limit < 1 || limit > schedule.MonitorLimit {
		return b, qlerror.New(qlerror.Invalid, "backlog limit %d is outside 1–%d", limit, schedule.MonitorLimit)
	}
	q, args := qMonitorBacklog, []any{s.nowMs(), limit}
	if len(in) > 0 {
		q, args = qMonitorBacklogInProjects, append(args, namesJSON(in))
	}
	err := s.read(ctx, "read the backlog", func(tx *txn) error {
		var oldest sql.NullInt64
		err := tx.QueryRowContext(ctx, q, args...).Scan(&b.Due, &oldest)
		b.OldestDueAtMs = ptr(oldest)
		return err
	})
	return b, err
}

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
