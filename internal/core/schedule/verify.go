package schedule

import (
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// CheckDecision reports why p's decision cannot be committed, or "" when it
// is exactly the one the decider derives from its ticket (cron, cursor,
// revision creation time, observation time) under p's grace, and run and
// attempt ids come with an admit only, two distinct valid ones. Adapters
// call it once the ticket has been verified against the stored row, so the
// ticket's inputs are the stored ones: a decision computed from any other
// time or input fails closed.
func CheckDecision(p CommitParams) Reason {
	sched, err := parseTicket(p.Ticket)
	if err != nil {
		return ReasonCronInvalid
	}
	want, err := Decide(ticketInput(sched, p.Ticket, p.GraceMs))
	if err != nil || !want.Equal(p.Decision) {
		return ReasonDecisionMismatch
	}
	switch {
	case want.Action != Admit && (p.RunID != "" || p.AttemptID != ""):
		return ReasonDecisionMismatch
	case want.Action == Admit &&
		(ids.Validate("runId", p.RunID) != nil || ids.Validate("attemptId", p.AttemptID) != nil || p.RunID == p.AttemptID):
		return ReasonDecisionMismatch
	}
	return ""
}

// Stored is what an adapter read, under its write lock, about a ticket's
// schedule row and the definitions the row stands on.
type Stored struct {
	ProjectStatus project.Status
	// TriggerHeadRevision and TriggerHeadTaskID are the trigger head's.
	TriggerHeadRevision int64
	TriggerHeadTaskID   string
	// Trigger is the revision at the schedule row's revision, as stored;
	// TriggerKind its stored spec kind.
	Trigger     trigger.Revision
	TriggerKind string
	// TaskHeadRevision is the task head's; Task the revision Trigger pins,
	// as stored (an undecodable spec left empty, so its digest fails).
	TaskHeadRevision int64
	Task             task.Revision
	// TaskDigestVerified: the adapter already verified Task's digest from
	// these exact stored contents (a page's rows mostly pin one task
	// revision, and its digest costs more than the rest of the check), so
	// VerifySnapshot does not compute it again. Only a digest that matched
	// may be vouched for; an unverified one is always computed.
	TaskDigestVerified bool
	// RowRevision, StateVersion and NextFireAtMs are the schedule row's.
	RowRevision  int64
	StateVersion int64
	NextFireAtMs *int64
	// Pause is the row's last ended pause, or nil.
	Pause *PauseSpan
}

// VerifySnapshot checks, item by item in the order every adapter follows
// (docs/architecture.md, "Outcomes and reasons"), that the ticket's
// snapshot still holds against s, and returns "" when it does. A changed
// definition or row is a race (someone else's write won); content that
// contradicts itself or the ticket, or a cursor moved without the version
// bump every writer makes, fails closed. The cluster checks its claim after
// this, and every adapter the decision (CheckDecision) after that.
func VerifySnapshot(tk Ticket, s Stored) Reason {
	t := s.Trigger
	switch {
	case s.ProjectStatus != project.Active:
		return ReasonProjectInactive
	case s.RowRevision != tk.TriggerRevision || s.TriggerHeadRevision != s.RowRevision || t.Revision != s.RowRevision:
		return ReasonTriggerRevisionChanged
	case s.TaskHeadRevision != t.TaskRevision:
		return ReasonTaskRevisionChanged
	case t.ContentDigest != tk.TriggerContentDigest || t.CreatedAtMs != tk.TriggerCreatedAtMs || t.Spec.Cron != tk.Cron ||
		t.ProjectID != tk.ProjectID || s.TriggerHeadTaskID != t.TaskID:
		return ReasonTriggerSnapshotMismatch
	case t.TaskID != tk.TaskID || t.TaskRevision != tk.TaskRevision || t.TaskContentDigest != tk.TaskContentDigest:
		return ReasonTaskSnapshotMismatch
	case t.VerifyDigest() != nil:
		return ReasonTriggerDigestCorrupt
	case s.Task.ContentDigest != t.TaskContentDigest || !s.TaskDigestVerified && s.Task.VerifyDigest() != nil:
		return ReasonTaskDigestCorrupt
	case !t.Spec.Enabled || s.TriggerKind != trigger.SpecKind || !s.Task.Spec.Enabled:
		return ReasonTriggerNotSchedulable
	case s.StateVersion != tk.StateVersion:
		return ReasonStateVersionChanged
	case !sameCursor(s.NextFireAtMs, tk.NextFireAtMs) || !samePause(s.Pause, tk.Pause):
		return ReasonCursorDrift
	}
	return ""
}

func sameCursor(a, b *int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
