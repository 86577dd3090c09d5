package schedule

import "context"

// Releaser is a Store whose takes hold claims that another taker would
// otherwise have to wait out (the cluster's row leases), and that can give
// back the claims of tickets it will not commit. A store whose takes hold
// nothing beyond the row's version (single-node profiles, Lease nil) does
// not implement it.
type Releaser interface {
	// ScheduleRelease gives back the claims of tickets, each only while the
	// row still holds exactly the claim the ticket took (owner, token,
	// claim version, state version), and reports how many it gave back. A
	// claim since committed, taken over or changed in any other way is left
	// as it is, so a release is safe whatever became of its tickets, and
	// through any connection to the same database.
	ScheduleRelease(ctx context.Context, tickets []Ticket) (int, error)
}

// ReleaseObserver records, for monitoring (the metrics package), what
// became of claims a scheduler tried to give back.
type ReleaseObserver interface {
	// ClaimsGivenBack records released rows given back, free for any
	// taker at once, and failed tickets whose release failed: those wait
	// out their lease.
	ClaimsGivenBack(released, failed int)
}

// Release gives tickets' claims back through st when st is a Releaser,
// and returns 0 and nil, asking nothing, when it is not or tickets is
// empty.
func Release(ctx context.Context, st Store, tickets []Ticket) (int, error) {
	rs, ok := st.(Releaser)
	if !ok || len(tickets) == 0 {
		return 0, nil
	}
	return rs.ScheduleRelease(ctx, tickets)
}

// Held lists the tickets whose claims this page may still hold: every
// decided ticket when the page was never committed, and those its commit
// did not settle (admit, initialise or skip) when it was. A ticket whose
// decision failed before the commit is not listed: taken again, it would
// fail again. Call it only once Commit (if any) has returned.
func (p *Page) Held() []Ticket {
	if p.committed {
		return p.unsettled
	}
	held := make([]Ticket, len(p.commits))
	for i, c := range p.commits {
		held[i] = c.Ticket
	}
	return held
}
