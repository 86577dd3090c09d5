package pgstore

import (
	"github.com/qinglong/qinglong/internal/project"
	"github.com/qinglong/qinglong/internal/schedule"
	"github.com/qinglong/qinglong/internal/task"
	"github.com/qinglong/qinglong/internal/trigger"
)

// verifyTicket checks, item by item in the order every adapter follows
// (docs/architecture.md, "Admission"), that the ticket's snapshot and claim
// still hold against the locked row, and returns "" when the write may go
// ahead. A changed definition or a lost/expired claim is a race (someone
// else's write won); anything that can only mean corruption, a writer that
// skipped the version bump or a clock going back fails closed.
func verifyTicket(p schedule.CommitParams, f commitFacts) schedule.Reason {
	tk, l := p.Ticket, p.Ticket.Lease
	switch {
	case project.Status(f.ProjectStatus) != project.Active:
		return schedule.ReasonProjectInactive
	case f.Revision != tk.TriggerRevision || f.HeadRevision != f.Revision:
		return schedule.ReasonTriggerRevisionChanged
	case f.TaskHeadRevision != f.Trigger.TaskRevision:
		return schedule.ReasonTaskRevisionChanged
	case f.Trigger.ContentDigest != tk.TriggerContentDigest || f.Trigger.CreatedAtMs != tk.TriggerCreatedAtMs ||
		f.Trigger.Spec.Cron != tk.Cron || f.ProjectID != tk.ProjectID || f.HeadTaskID != f.Trigger.TaskID:
		return schedule.ReasonTriggerSnapshotMismatch
	case f.Trigger.TaskID != tk.TaskID || f.Trigger.TaskRevision != tk.TaskRevision || f.Trigger.TaskContentDigest != tk.TaskContentDigest:
		return schedule.ReasonTaskSnapshotMismatch
	case f.Trigger.VerifyDigest() != nil:
		return schedule.ReasonTriggerDigestCorrupt
	case f.Task.ContentDigest != f.Trigger.TaskContentDigest || f.Task.VerifyDigest() != nil:
		return schedule.ReasonTaskDigestCorrupt
	case !f.Trigger.Spec.Enabled || f.TriggerKind != trigger.SpecKind || !f.Task.Spec.Enabled:
		return schedule.ReasonTriggerNotSchedulable
	case f.StateVersion != tk.StateVersion:
		return schedule.ReasonStateVersionChanged
	case !sameCursor(f.NextFireAtMs, tk.NextFireAtMs):
		return schedule.ReasonCursorDrift
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
			f.Execution.Verify(f.Task.Revision, f.Task.ContentDigest, task.RemoteWorker) != nil:
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

func sameCursor(a, b *int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
