package pgstore

import (
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
)

// verifyTicket checks that the ticket's snapshot (the shared
// schedule.VerifySnapshot, in the order every adapter follows) and then its
// claim still hold against the locked row, and returns "" when the write may
// go ahead. A lost or expired claim is a race; a database clock behind the
// claim's acquisition fails closed.
func verifyTicket(p schedule.CommitParams, f commitFacts) schedule.Reason {
	tk, l := p.Ticket, p.Ticket.Lease
	if r := schedule.VerifySnapshot(tk, f.stored()); r != "" {
		return r
	}
	switch {
	case f.ClaimOwner == nil || *f.ClaimOwner != l.Owner || f.ClaimToken == nil || *f.ClaimToken != l.Token ||
		f.ClaimVersion != l.ClaimVersion || f.ClaimExpiresAtMs == nil || *f.ClaimExpiresAtMs != l.ExpiresAtMs ||
		f.UpdatedAtMs != l.AcquiredAtMs:
		return schedule.ReasonClaimLost
	case f.NowMs >= l.ExpiresAtMs:
		return schedule.ReasonClaimExpired
	case f.NowMs < l.AcquiredAtMs:
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

// verifyDecision: a decision must come from the claim's acquired time,
// and be exactly the one the shared decider derives from the verified
// ticket (whose cron, cursor and revision time are the locked row's).
func verifyDecision(p schedule.CommitParams) schedule.Reason {
	if p.Ticket.ObservedAtMs != p.Ticket.Lease.AcquiredAtMs {
		return schedule.ReasonDecisionNotFromClaimTime
	}
	return schedule.CheckDecision(p)
}
