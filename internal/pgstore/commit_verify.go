package pgstore

import (
	"github.com/qinglong/qinglong/internal/cron"
	"github.com/qinglong/qinglong/internal/ids"
	"github.com/qinglong/qinglong/internal/project"
	"github.com/qinglong/qinglong/internal/schedule"
	"github.com/qinglong/qinglong/internal/task"
	"github.com/qinglong/qinglong/internal/trigger"
)

// verdict is the result of verifying a ticket: zero means "write".
type verdict struct {
	Outcome schedule.Outcome
	Reason  string
}

func raced(reason string) verdict  { return verdict{Outcome: schedule.Raced, Reason: reason} }
func failed(reason string) verdict { return verdict{Outcome: schedule.Failed, Reason: reason} }

// verifyTicket checks, item by item in docs/architecture.md, "Admission" order, that the ticket's
// snapshot and claim still hold against the locked row. A changed
// definition or a lost/expired claim is a race (someone else's write won);
// anything that can only mean corruption or a clock going back fails
// closed.
func verifyTicket(p schedule.CommitParams, f commitFacts) verdict {
	tk, l := p.Ticket, p.Ticket.Lease
	switch {
	case project.Status(f.ProjectStatus) != project.Active:
		return raced("project_inactive")
	case f.Revision != tk.TriggerRevision || f.HeadRevision != f.Revision:
		return raced("trigger_revision_changed")
	case f.TaskHeadRevision != f.Trigger.TaskRevision:
		return raced("task_revision_changed")
	case f.Trigger.ContentDigest != tk.TriggerContentDigest || f.Trigger.CreatedAtMs != tk.TriggerCreatedAtMs ||
		f.Trigger.Spec.Cron != tk.Cron || f.ProjectID != tk.ProjectID || f.HeadTaskID != f.Trigger.TaskID:
		return failed("trigger_snapshot_mismatch")
	case f.Trigger.TaskID != tk.TaskID || f.Trigger.TaskRevision != tk.TaskRevision || f.Trigger.TaskContentDigest != tk.TaskContentDigest:
		return failed("task_snapshot_mismatch")
	case f.Trigger.VerifyDigest() != nil:
		return failed("trigger_digest_corrupt")
	case f.Task.ContentDigest != f.Trigger.TaskContentDigest || f.Task.VerifyDigest() != nil:
		return failed("task_digest_corrupt")
	case !f.Trigger.Spec.Enabled || f.TriggerKind != trigger.SpecKind || !f.Task.Spec.Enabled:
		return failed("trigger_not_schedulable")
	case f.StateVersion != tk.StateVersion:
		return raced("state_version_changed")
	case !sameCursor(f.NextFireAtMs, tk.NextFireAtMs):
		return raced("cursor_changed")
	case f.ClaimOwner == nil || *f.ClaimOwner != l.Owner || f.ClaimToken == nil || *f.ClaimToken != l.Token ||
		f.ClaimVersion != l.ClaimVersion || f.ClaimExpiresAtMs == nil || *f.ClaimExpiresAtMs != l.ExpiresAtMs ||
		f.UpdatedAtMs != l.AcquiredAtMs:
		return raced("claim_lost")
	case f.NowMs >= l.ExpiresAtMs:
		return raced("claim_expired")
	case f.NowMs < l.AcquiredAtMs:
		return failed("clock_went_back")
	}
	if v := verifyDecision(p, f); v.Outcome != "" {
		return v
	}
	if p.Decision.Action == schedule.Admit {
		switch {
		case f.Execution == nil:
			return failed("execution_missing")
		case f.Execution.ProjectID != f.ProjectID ||
			f.Execution.Verify(f.Task.Revision, f.Task.ContentDigest, task.RemoteWorker) != nil:
			return failed("execution_corrupt")
		}
	}
	return verdict{}
}

// verifyDecision recomputes the decision with the shared decider from the
// locked row's own facts (stored cron spec, cursor, revision creation time),
// the claim's acquired time and the round's grace: a decision computed from
// any other time or input does not match and fails closed.
func verifyDecision(p schedule.CommitParams, f commitFacts) verdict {
	tk, acquired := p.Ticket, p.Ticket.Lease.AcquiredAtMs
	if tk.ObservedAtMs != acquired {
		return failed("decision_not_from_claim_time")
	}
	sched, err := cron.Parse(f.Trigger.Spec.Cron.Expression, f.Trigger.Spec.Cron.Timezone)
	if err != nil {
		return failed("cron_invalid")
	}
	want, err := schedule.Decide(schedule.Input{
		Schedule:            sched,
		CursorMs:            f.NextFireAtMs,
		RevisionCreatedAtMs: f.Trigger.CreatedAtMs,
		NowMs:               acquired,
		Policy:              f.Trigger.Spec.Cron.MisfirePolicy,
		GraceMs:             p.GraceMs,
	})
	if err != nil || want != p.Decision {
		return failed("decision_mismatch")
	}
	if want.Action == schedule.Admit &&
		(ids.Validate("runId", p.RunID) != nil || ids.Validate("attemptId", p.AttemptID) != nil || p.RunID == p.AttemptID) {
		return failed("decision_mismatch")
	}
	return verdict{}
}

func sameCursor(a, b *int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
