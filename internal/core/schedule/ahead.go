package schedule

import "context"

// AheadTaker is a Store that can claim rows before they fall due, so that
// at a burst's due instant only the admission's own write remains (the
// cluster's claim writes every row it takes; docs/architecture.md, "Claim
// ahead"). A store that takes no claims has nothing to move ahead and does
// not implement it.
type AheadTaker interface {
	// ScheduleTakeAhead is ScheduleTakeHorizon that also claims rows
	// falling due at or before dueByMs, an instant of the store's own clock
	// that may lie ahead of it. The claim's lease still starts at the
	// store's clock; how far ahead it may reach is the store's to bound.
	ScheduleTakeAhead(ctx context.Context, p TakeParams, dueByMs int64) ([]Ticket, TakeHorizon, error)
}

// decidedAt is the instant a ticket is decided at: its observation time
// (the claim's acquisition in the cluster), or its due time when the row
// was claimed ahead of it. Deciding at the due time is what the same claim
// taken at that instant would have decided: the lease held the row
// unchanged from the claim on, so no fact the decision reads can differ
// between the two. The cluster store admits such a decision only once the
// database clock has reached it.
func decidedAt(tk Ticket) int64 {
	if due := tk.DueAtMs(); due != nil && *due > tk.ObservedAtMs {
		return *due
	}
	return tk.ObservedAtMs
}
