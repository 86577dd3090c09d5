package pgstore

import (
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
)

// verifyTicket checks that the ticket's snapshot (the shared
// schedule.VerifySnapshot, in the order every adapter follows) and then its
// claim still hold against the locked row, and returns "" when the write may
// go ahead. A lost or expired claim is a race; a database clock behind the
// claim's acquisition, or behind the due time a row claimed ahead was
// decided at, fails closed (the page commit waits for the clock to reach
// that due time first: decidedAhead).
func verifyTicket(p schedule.CommitParams, f commitFacts) schedule.Reason {
	tk, l := p.Ticket, p.Ticket.Lease
	if r := schedule.VerifySnapshot(tk, f.stored()); r != "" {
		return r
	}
	switch {
	case !claimHeld(f, *l):
		return schedule.ReasonClaimLost
	case f.NowMs >= l.ExpiresAtMs:
		return schedule.ReasonClaimExpired
	case f.NowMs < l.AcquiredAtMs, decidedAhead(tk) && f.NowMs < tk.ObservedAtMs:
		return schedule.ReasonClockWentBack
	}
	if r := verifyDecision(p); r != "" {
		return r
	}
	if p.Decision.Action == schedule.Admit {
		switch {
		case f.Execution == nil:
			return schedule.ReasonExecutionMissing
		case f.Execution.ProjectID != f.ProjectID ||
			!f.executionVerified && f.Execution.Verify(f.Task.Revision, f.Task.ContentDigest, task.RemoteWorker) != nil:
			return schedule.ReasonExecutionCorrupt
		}
	}
	return ""
}

// verifyDecision: a decision must come from the claim's acquired time, or
// from the row's due time when the row was claimed ahead of it (the due
// time of the locked row's own cursor, after the acquisition), and be
// exactly the one the shared decider derives from the verified ticket
// (whose cron, cursor and revision time are the locked row's).
func verifyDecision(p schedule.CommitParams) schedule.Reason {
	if tk := p.Ticket; tk.ObservedAtMs != tk.Lease.AcquiredAtMs && !decidedAhead(tk) {
		return schedule.ReasonDecisionNotFromClaimTime
	}
	return schedule.CheckDecision(p)
}

// decidedAhead reports whether tk was claimed ahead of its due time and is
// decided at it.
func decidedAhead(tk schedule.Ticket) bool {
	due := tk.DueAtMs()
	return due != nil && *due > tk.Lease.AcquiredAtMs && tk.ObservedAtMs == *due
}

// claimHeld reports whether the locked row still holds exactly l's claim:
// the same owner, token, claim version, expiry and acquisition time. A
// token is compared as the canonical text the claim read it in, so a
// ticket's token that differs in any character (its case included) is
// another claim's, as when both were strings.
func claimHeld(f commitFacts, l schedule.Lease) bool {
	return f.ClaimOwner.Valid && f.ClaimOwner.String == l.Owner && f.ClaimToken.Valid && uuidTextIs(f.ClaimToken.Bytes, l.Token) &&
		f.ClaimVersion == l.ClaimVersion && f.ClaimExpiresAtMs.Valid && f.ClaimExpiresAtMs.Int64 == l.ExpiresAtMs &&
		f.UpdatedAtMs == l.AcquiredAtMs
}
