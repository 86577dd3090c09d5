package run

import (
	"strconv"
	"strings"
	"time"
)

// Identity is what an attempt's command is told about the attempt and the
// occurrence its Run is for: a backfill of a "daily report for day X"
// starts N identical commands, and only this tells them which X. Both
// executors (the single node's and a cluster worker) put the same
// variables (Env) into every command's environment.
type Identity struct {
	RunID     string
	AttemptID string
	// AttemptNumber counts from 1; a retry is 2, 3, …
	AttemptNumber int64
	// Project, Trigger and Task are names: the project's current name,
	// the trigger's at the Run's trigger revision and the task's at its
	// task revision (what fired, what runs).
	Project string
	Trigger string
	Task    string
	// ScheduledForMs is the occurrence the Run is for: the cron's nominal
	// time for the clock and a backfill, the repeated Run's for a rerun,
	// and the moment of the request for run now, which has no occurrence.
	ScheduledForMs int64
	// DueAtMs is when it fell due: ScheduledForMs moved by the trigger's
	// jitter; 0 for a Run admitted before the stores recorded it, whose
	// due time is ScheduledForMs.
	DueAtMs int64
	Origin  Origin
}

// The variables of Env, by name.
const (
	EnvRunID         = "QL_RUN_ID"
	EnvAttemptID     = "QL_ATTEMPT_ID"
	EnvAttemptNumber = "QL_ATTEMPT_NUMBER"
	EnvProject       = "QL_PROJECT"
	EnvTrigger       = "QL_TRIGGER"
	EnvTask          = "QL_TASK"
	EnvScheduledAt   = "QL_SCHEDULED_AT"
	EnvScheduledAtMs = "QL_SCHEDULED_AT_MS"
	EnvDueAt         = "QL_DUE_AT"
	EnvDueAtMs       = "QL_DUE_AT_MS"
	EnvOrigin        = "QL_ORIGIN"
	envTimeLayoutUTC = "2006-01-02T15:04:05.000Z"
)

// Env is the identity as NAME=value entries, every variable always
// present: times in RFC 3339 UTC with milliseconds and in Unix
// milliseconds.
func (id Identity) Env() []string {
	due := id.DueAtMs
	if due == 0 {
		due = id.ScheduledForMs
	}
	return []string{
		EnvRunID + "=" + id.RunID,
		EnvAttemptID + "=" + id.AttemptID,
		EnvAttemptNumber + "=" + strconv.FormatInt(id.AttemptNumber, 10),
		EnvProject + "=" + id.Project,
		EnvTrigger + "=" + id.Trigger,
		EnvTask + "=" + id.Task,
		EnvScheduledAt + "=" + envTime(id.ScheduledForMs),
		EnvScheduledAtMs + "=" + strconv.FormatInt(id.ScheduledForMs, 10),
		EnvDueAt + "=" + envTime(due),
		EnvDueAtMs + "=" + strconv.FormatInt(due, 10),
		EnvOrigin + "=" + string(id.Origin),
	}
}

// EnvNames are the names of the variables Env sets, in its order: read off
// Env itself, so no second list can miss one it adds.
func EnvNames() []string {
	entries := Identity{}.Env()
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i], _, _ = strings.Cut(e, "=")
	}
	return names
}

func envTime(ms int64) string { return time.UnixMilli(ms).UTC().Format(envTimeLayoutUTC) }
