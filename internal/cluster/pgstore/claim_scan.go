package pgstore

import (
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// claimScan reads the claim's rows (claim.sql's RETURNING, in ticketScan's
// column order) into one set of destinations made once per claim. Scanned
// through ticketScan.dest, each row cost about fourteen allocations: the
// destination list itself, its variables, a string per text and uuid
// column and a new int64 per non-NULL cursor. Here the columns the rows of
// a burst's page share (project, task, cron, policy, owner) are read into
// one string per distinct value of the page (page_cols.go), and the leases
// and cursors of the page are laid out in one array each once the last
// row is read, so a row costs its own trigger id and claim token and its
// share of the page's arrays.
type claimScan struct {
	ts         ticketScan
	lease      schedule.Lease
	tid        pgtype.TID
	next, last pgtype.Int8
	dest       []any

	tickets []schedule.Ticket
	tids    []pgtype.TID
	leases  []schedule.Lease
	// cursors are each row's next fire and last scheduled times, in pairs.
	cursors []pgtype.Int8
}

func newClaimScan() *claimScan {
	s := &claimScan{}
	defs := &pageDefs{texts: map[string]string{}, uuids: map[[16]byte]string{}}
	tk, l, pol := &s.ts.tk, &s.lease, &s.ts.pol
	shared := func(dst *string) any { return &textCol{dst: dst, defs: defs} }
	sharedID := func(dst *string) any { return &uuidCol{dst: dst, defs: defs} }
	// A trigger's id and its claim's token are the row's own: a nil
	// *pageDefs gives each its own string without keeping it.
	ownID := func(dst *string) any { return &uuidCol{dst: dst} }
	s.dest = []any{sharedID(&tk.ProjectID), ownID(&tk.TriggerID), &tk.TriggerRevision, &tk.TriggerContentDigest, &tk.TriggerCreatedAtMs,
		shared(&tk.Cron.Expression), shared(&tk.Cron.Timezone), shared(&s.ts.policy), &pol.jitter, &pol.start, &pol.end, &pol.window, &pol.overlap,
		sharedID(&tk.TaskID), &tk.TaskRevision, shared(&tk.TaskContentDigest),
		&s.next, &s.last, &tk.StateVersion,
		shared(&l.Owner), ownID(&l.Token), &l.ClaimVersion, &l.ExpiresAtMs, &l.AcquiredAtMs, &s.tid,
		&s.ts.pausedAt, &s.ts.resumedAt}
	return s
}

// scan reads every row of the claim.
func (s *claimScan) scan(rows pgx.Rows) error {
	defer rows.Close()
	for rows.Next() {
		s.ts = ticketScan{}
		if err := rows.Scan(s.dest...); err != nil {
			return err
		}
		tk := s.ts.ticket()
		tk.ObservedAtMs = s.lease.AcquiredAtMs
		s.tickets = append(s.tickets, tk)
		s.tids = append(s.tids, s.tid)
		s.leases = append(s.leases, s.lease)
		s.cursors = append(s.cursors, s.next, s.last)
	}
	return rows.Err()
}

// done are the claim's tickets, each pointing at its own lease and
// cursors, and the row version of each: pointed at only now, when the
// arrays have stopped growing.
func (s *claimScan) done() ([]schedule.Ticket, []pgtype.TID) {
	times := make([]int64, len(s.cursors))
	at := func(i int) *int64 {
		if !s.cursors[i].Valid {
			return nil
		}
		times[i] = s.cursors[i].Int64
		return &times[i]
	}
	for i := range s.tickets {
		tk := &s.tickets[i]
		tk.Lease = &s.leases[i]
		tk.NextFireAtMs, tk.LastScheduledAtMs = at(2*i), at(2*i+1)
	}
	return s.tickets, s.tids
}
