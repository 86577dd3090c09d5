package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// ScheduleTake claims up to p.Limit (1–256) due or uninitialised schedule
// rows in one autocommit statement and returns them as tickets whose
// ObservedAtMs is the claim's database acquisition time. There is no time
// input: only PostgreSQL's clock decides. An error wrapping
// schedule.ErrUnavailable means the database is gone.
//
// The claim is pipelined behind sqlClaimSettings, in the same round trip:
// planning its three branches costs more than executing them, and left to
// itself PostgreSQL re-plans it on every call (the settings also turn JIT
// off, see claim_horizon.sql). The horizon
// read follows it (claim_horizon.go). They share only the implicit
// transaction a pipeline runs in until its Sync, which commits the claim
// (no BEGIN, no COMMIT statement); the settings end with it. The generic plan is as flat as the custom one (claimplan_test.go
// measures the generic plan).
func (r *Runtime) ScheduleTake(ctx context.Context, p schedule.TakeParams) ([]schedule.Ticket, error) {
	tickets, _, err := r.ScheduleTakeHorizon(ctx, p)
	return tickets, err
}

// scanTickets reads the claim's rows and the row version (ctid) of each.
func scanTickets(br pgx.BatchResults) ([]schedule.Ticket, []pgtype.TID, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, nil, err
	}
	s := newClaimScan()
	if err := s.scan(rows); err != nil {
		return nil, nil, err
	}
	tickets, tids := s.done()
	return tickets, tids, nil
}

// ticketScan scans what every read of tickets returns (the clock check;
// the claim reads the same columns through claimScan): the revision's
// definition and the row's schedule state first, then the columns of the
// read's own (dest's middle), then the row's last pause.
type ticketScan struct {
	tk                  schedule.Ticket
	policy              string
	pausedAt, resumedAt *int64
	pol                 policyCols
}

// dest are the scan's destinations, with middle's between the row's
// schedule state and its last pause.
func (s *ticketScan) dest(middle ...any) []any {
	tk := &s.tk
	d := []any{&tk.ProjectID, &tk.TriggerID, &tk.TriggerRevision, &tk.TriggerContentDigest, &tk.TriggerCreatedAtMs,
		&tk.Cron.Expression, &tk.Cron.Timezone, &s.policy, &s.pol.jitter, &s.pol.start, &s.pol.end, &s.pol.window, &s.pol.overlap,
		&tk.TaskID, &tk.TaskRevision, &tk.TaskContentDigest,
		&tk.NextFireAtMs, &tk.LastScheduledAtMs, &tk.StateVersion}
	return append(append(d, middle...), &s.pausedAt, &s.resumedAt)
}

// ticket is the ticket the scan read.
func (s *ticketScan) ticket() schedule.Ticket {
	tk := s.tk
	tk.Cron.MisfirePolicy = trigger.MisfirePolicy(s.policy)
	tk.Pause = schedule.PauseSpanOf(false, s.pausedAt, s.resumedAt)
	s.pol.into(&tk.Cron)
	return tk
}

// ticketBefore is the claim order: the cursor's jittered due time NULLS
// FIRST, project id, trigger id (UUID text order equals UUID byte order).
func ticketBefore(a, b schedule.Ticket) bool {
	da, aDue := a.DueAt()
	db, bDue := b.DueAt()
	switch {
	case aDue != bDue:
		return !aDue
	case aDue && da != db:
		return da < db
	case a.ProjectID != b.ProjectID:
		return a.ProjectID < b.ProjectID
	}
	return a.TriggerID < b.TriggerID
}
