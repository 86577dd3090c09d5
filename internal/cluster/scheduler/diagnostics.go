package scheduler

// Stable diagnostic codes of the cluster scheduler's lifecycle; a round's
// own records carry the codes every profile shares (schedule.CodeRound and
// the others). Operators and tests match on these, never on the message
// text.
const (
	CodeStarted       = "scheduler.started"
	CodeStopped       = "scheduler.stopped"
	CodeUnavailable   = "scheduler.database_unavailable"
	CodeDrainTimedOut = "scheduler.drain_timeout"
)
