package pgstore

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// ScheduleCommitPage commits a page's decisions one by one through
// ScheduleCommit, in order: each result is exactly that decision's own,
// and one decision's failure never touches another's.
func (r *Runtime) ScheduleCommitPage(ctx context.Context, ps []schedule.CommitParams) ([]schedule.CommitResult, error) {
	out := make([]schedule.CommitResult, len(ps))
	for i, p := range ps {
		out[i], _ = r.ScheduleCommit(ctx, p)
	}
	return out, nil
}
