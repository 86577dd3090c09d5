package pgstore

import (
	"context"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// sql/claim_horizon.sql: the claim pipeline's settings and the next due
// instant, read with the claim.
var (
	sqlClaimSettings = stmt("ClaimSettings")
	sqlClaimHorizon  = stmt("ClaimHorizon")
)

var _ schedule.AheadTaker = (*Runtime)(nil)

// ScheduleTakeHorizon is ScheduleTake plus, in the same round trip and the
// same implicit transaction (after the claim, so this page's rows are
// already held and excluded), the database clock and the earliest cursor
// of an unclaimed schedulable row due strictly after it.
func (r *Runtime) ScheduleTakeHorizon(ctx context.Context, p schedule.TakeParams) ([]schedule.Ticket, schedule.TakeHorizon, error) {
	return r.take(ctx, p, 0)
}

// ScheduleTakeAhead is ScheduleTakeHorizon that also claims the rows
// falling due at or before dueByMs, database time, but never more than
// half a lease ahead of the database clock (sql/claim.sql, "claim ahead").
func (r *Runtime) ScheduleTakeAhead(ctx context.Context, p schedule.TakeParams, dueByMs int64) ([]schedule.Ticket, schedule.TakeHorizon, error) {
	if dueByMs <= 0 {
		return nil, schedule.TakeHorizon{}, qlerror.New(qlerror.Invalid, "claim-ahead instant %d must be above 0 (database time in milliseconds)", dueByMs)
	}
	return r.take(ctx, p, dueByMs)
}

// take runs the claim's pipeline; dueByMs is the claim's $4.
func (r *Runtime) take(ctx context.Context, p schedule.TakeParams, dueByMs int64) ([]schedule.Ticket, schedule.TakeHorizon, error) {
	var h schedule.TakeHorizon
	if p.Limit < 1 || p.Limit > schedule.MaxPageSize {
		return nil, h, qlerror.New(qlerror.Invalid, "take limit %d is outside 1–%d", p.Limit, schedule.MaxPageSize)
	}
	b := &pgx.Batch{}
	b.Queue(sqlClaimSettings)
	b.Queue(sqlClaim, r.cfg.Owner, p.Limit, r.cfg.Lease.Milliseconds(), dueByMs)
	b.Queue(sqlClaimHorizon)
	br := r.pool.SendBatch(ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return nil, h, mapErr(err, "claiming schedule rows")
	}
	tickets, tids, err := scanTickets(br)
	if err != nil {
		return nil, h, mapErr(err, "claiming schedule rows")
	}
	if err := br.QueryRow().Scan(&h.NowMs, &h.NextDueMs); err != nil {
		return nil, h, mapErr(err, "reading the next due instant")
	}
	// The Sync's reply: the claim is committed once it has arrived.
	if err := br.Close(); err != nil {
		return nil, h, mapErr(err, "claiming schedule rows")
	}
	r.handles.remember(tickets, tids)
	sort.Slice(tickets, func(i, j int) bool { return ticketBefore(tickets[i], tickets[j]) })
	return tickets, h, nil
}
