package run

// CancelReason says in a cancel's event (its payload's "reason") what
// cancelled a Run, where the actor alone does not: a person's cancel names
// who asked (the actor) and says a reason only when the Run had not
// started or was lost; a cancel made by an overlap policy has no actor and
// always says which admission made it. Stored in English; the console
// says each in the page's language.
type CancelReason string

const (
	// CancelledBeforeStart is said when a person cancelled a Run queued or
	// waiting to retry; its next attempt never starts.
	CancelledBeforeStart CancelReason = "cancelled before it started"
	// CancelledAfterLost is said when a person closed a lost Run.
	CancelledAfterLost CancelReason = "cancelled after it was lost"
	// CancelledByLaterOccurrence is said when the admission of a trigger's
	// later occurrence cancelled it under overlap cancel_previous.
	CancelledByLaterOccurrence CancelReason = "cancelled by a later occurrence (overlap: cancel_previous)"
	// CancelledByManualRun is said when a manual run of the trigger
	// cancelled it under overlap cancel_previous.
	CancelledByManualRun CancelReason = "cancelled by a manual run (overlap: cancel_previous)"
)

// CancelPayload is the payload of a cancel's event (run.cancel_requested
// for a running Run, run.cancelled otherwise): the attempt it stops or
// ends, who asked (actor, empty for QingLong's own cancels), and the
// reason, empty where none is said. by is the cause of a cancel QingLong
// made itself (empty for a person's); running and lost say which Run it
// meets.
func CancelPayload(attemptID, actor string, by CancelReason, running, lost bool) map[string]any {
	p := map[string]any{"attemptId": attemptID}
	if actor != "" {
		p["actor"] = actor
	}
	reason := by
	switch {
	case by != "":
	case lost:
		reason = CancelledAfterLost
	case !running:
		reason = CancelledBeforeStart
	}
	if reason != "" {
		p["reason"] = string(reason)
	}
	return p
}
