package schedule

import (
	"context"
	"fmt"
	"time"
)

// UnreadableRecheck is how long a store without claims passes over a row
// whose stored revision this host could not read or decide before its take returns the
// row again: the cluster's default lease, the wait a claimed row of the
// cluster keeps (a failed decision keeps its claim until it expires).
const UnreadableRecheck = 30 * time.Second

// Rechecker is a Store whose take holds nothing (single-node profiles,
// Lease nil), so a row whose decision failed on its stored revision would
// be taken again at the head of the next round: because this host cannot
// read its stored cron (cron_invalid: a zone its zone database lacks, a
// cron that no longer parses), or because this build cannot decide it
// (decision_failed: a misfire policy a newer build published, a cron with
// no occurrence left). Its cursor never moves, so it stays due before
// every other row, and a page of such rows would keep every row due after
// them from ever being admitted. A store whose take claims (the cluster)
// does not implement it: the failed ticket's claim keeps the row from the
// next takes until the claim expires.
type Rechecker interface {
	// ScheduleRecheckLater has the take pass over each ticket's row for
	// after of the store's own clock, only while the row still has the
	// ticket's state version: a row changed since (republished, paused,
	// decided by another taker) is left as it is, and a later change ends
	// the wait at once. The wait writes nothing a commit verifies. It
	// reports how many rows will wait.
	ScheduleRecheckLater(ctx context.Context, tickets []Ticket, after time.Duration) (int, error)
}

// recheckLater has st pass over the rows of unreadable, tickets this
// round failed on their revision (cron_invalid, decision_failed) or on
// their row's own stored state (failsOnItsRow), for UnreadableRecheck when st is a
// Rechecker, and counts in Summary.Unreadable the rows the next take
// passes over: those the Rechecker put aside, or every such row whose
// ticket holds a claim (it keeps the row until it expires). A wait that
// could not be written is reported: the rows are then taken again next
// round, as they were before the wait existed.
func (p *Page) recheckLater(ctx context.Context, st Store) {
	if len(p.unreadable) == 0 {
		return
	}
	rc, ok := st.(Rechecker)
	if !ok {
		for _, tk := range p.unreadable {
			if tk.Lease != nil {
				p.sum.Unreadable++
			}
		}
		return
	}
	n, err := rc.ScheduleRecheckLater(ctx, p.unreadable, UnreadableRecheck)
	if err != nil {
		p.sum.Errors = append(p.sum.Errors, fmt.Errorf("passing over %d rows this host cannot read for %s: %w", len(p.unreadable), UnreadableRecheck, err))
	}
	p.sum.Unreadable = n
}
