package pgstore

import (
	"context"
	_ "embed"
	"sort"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qinglong/qinglong/internal/qlerror"
	"github.com/qinglong/qinglong/internal/schedule"
	"github.com/qinglong/qinglong/internal/trigger"
)

//go:embed sql/claim.sql
var sqlClaim string

// ScheduleTake claims up to p.Limit (1–256) due or uninitialised schedule
// rows in one autocommit statement and returns them as tickets whose
// ObservedAtMs is the claim's database acquisition time. There is no time
// input: only PostgreSQL's clock decides. An error wrapping
// schedule.ErrUnavailable means the database is gone.
func (r *Runtime) ScheduleTake(ctx context.Context, p schedule.TakeParams) ([]schedule.Ticket, error) {
	if p.Limit < 1 || p.Limit > schedule.MaxPageSize {
		return nil, qlerror.New(qlerror.Invalid, "take limit %d is outside 1–%d", p.Limit, schedule.MaxPageSize)
	}
	rows, err := r.pool.Query(ctx, sqlClaim, r.cfg.Owner, p.Limit, r.cfg.Lease.Milliseconds())
	if err != nil {
		return nil, mapErr(err, "claiming schedule rows")
	}
	defer rows.Close()
	var tickets []schedule.Ticket
	for rows.Next() {
		tk, tid, err := scanTicket(rows)
		if err != nil {
			return nil, mapErr(err, "claiming schedule rows")
		}
		r.handles.remember(tk.Lease.Token, tid, tk.Lease.ExpiresAtMs, tk.Lease.AcquiredAtMs)
		tickets = append(tickets, tk)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err, "claiming schedule rows")
	}
	sort.Slice(tickets, func(i, j int) bool { return ticketBefore(tickets[i], tickets[j]) })
	return tickets, nil
}

func scanTicket(row pgx.Row) (schedule.Ticket, pgtype.TID, error) {
	var tk schedule.Ticket
	var tid pgtype.TID
	var l schedule.Lease
	var policy string
	err := row.Scan(&tk.ProjectID, &tk.TriggerID, &tk.TriggerRevision, &tk.TriggerContentDigest, &tk.TriggerCreatedAtMs,
		&tk.Cron.Expression, &tk.Cron.Timezone, &policy,
		&tk.TaskID, &tk.TaskRevision, &tk.TaskContentDigest,
		&tk.NextFireAtMs, &tk.LastScheduledAtMs, &tk.StateVersion,
		&l.Owner, &l.Token, &l.ClaimVersion, &l.ExpiresAtMs, &l.AcquiredAtMs, &tid)
	tk.Cron.MisfirePolicy = trigger.MisfirePolicy(policy)
	tk.Lease = &l
	tk.ObservedAtMs = l.AcquiredAtMs
	return tk, tid, err
}

// ticketBefore is the claim order: next_fire_at NULLS FIRST, project id,
// trigger id (UUID text order equals UUID byte order).
func ticketBefore(a, b schedule.Ticket) bool {
	switch {
	case (a.NextFireAtMs == nil) != (b.NextFireAtMs == nil):
		return a.NextFireAtMs == nil
	case a.NextFireAtMs != nil && *a.NextFireAtMs != *b.NextFireAtMs:
		return *a.NextFireAtMs < *b.NextFireAtMs
	case a.ProjectID != b.ProjectID:
		return a.ProjectID < b.ProjectID
	}
	return a.TriggerID < b.TriggerID
}
