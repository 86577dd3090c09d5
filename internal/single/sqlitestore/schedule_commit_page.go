package sqlitestore

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// ScheduleCommitPage commits each decision of a page in turn, each in its
// own transaction, so every result is exactly ScheduleCommit's.
func (s *Store) ScheduleCommitPage(ctx context.Context, ps []schedule.CommitParams) ([]schedule.CommitResult, error) {
	out := make([]schedule.CommitResult, len(ps))
	for i, p := range ps {
		out[i], out[i].Err = s.ScheduleCommit(ctx, p)
	}
	return out, nil
}
