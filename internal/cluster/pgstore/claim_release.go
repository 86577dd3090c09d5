package pgstore

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

var _ schedule.Releaser = (*Runtime)(nil)

// ScheduleRelease gives back the claims of tickets this replica will not
// commit, each only while the row still holds exactly the claim its ticket
// took (sql/claim.sql, ClaimRelease), and reports how many it released.
// When it released any, it wakes every replica's scheduler
// (SchedulesChangedChannel), so the rows are claimed again at once rather
// than at the next cadence tick. Tickets without a lease are ignored.
func (r *Runtime) ScheduleRelease(ctx context.Context, tickets []schedule.Ticket) (int, error) {
	var ids, owners, tokens []string
	var claimVersions, stateVersions []int64
	for _, tk := range tickets {
		if tk.Lease == nil {
			continue
		}
		ids = append(ids, tk.TriggerID)
		owners = append(owners, tk.Lease.Owner)
		tokens = append(tokens, tk.Lease.Token)
		claimVersions = append(claimVersions, tk.Lease.ClaimVersion)
		stateVersions = append(stateVersions, tk.StateVersion)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	var released int
	if err := r.pool.QueryRow(ctx, sqlClaimRelease, ids, owners, tokens, claimVersions, stateVersions).Scan(&released); err != nil {
		return 0, mapErr(err, "releasing schedule claims")
	}
	if released > 0 {
		if _, err := r.pool.Exec(ctx, sqlNotifySchedulesChanged, SchedulesChangedChannel); err != nil {
			return released, mapErr(err, "waking the schedulers after releasing claims")
		}
	}
	return released, nil
}
