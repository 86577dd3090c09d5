package schedule

import "github.com/qinglong/qinglong/internal/ids"

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
	if err != nil || want != p.Decision {
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
