package run

import "log/slog"

// FinishedLevel is the level of the line a server logs as a Run finishes
// (run.finished) in state s: warn for a Run that failed, timed out or was
// lost, which someone should look at, info for one that succeeded or that
// someone cancelled. Every server profile logs by this rule, so an alert
// on warnings sees a failed Run wherever its command ran.
func FinishedLevel(s State) slog.Level {
	switch s {
	case Failed, TimedOut, Lost:
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

// FinishedAttrs are the attributes after the code of the line a server
// logs as attempt a of Run id ends, the same on every profile: the Run,
// its project, task and trigger, the attempt's number and state, its exit
// code or error code, and duration_ms, how long it ran from its start to
// its end (absent for an attempt that never started). Names and numbers
// only: never the command, its environment or its output.
func FinishedAttrs(id Identity, a Attempt) []any {
	attrs := []any{"run", id.RunID, "project", id.Project, "task", id.Task, "trigger", id.Trigger,
		"attempt", id.AttemptNumber, "state", a.State}
	if a.ExitCode != nil {
		attrs = append(attrs, "exit", *a.ExitCode)
	}
	if a.ErrorCode != "" {
		attrs = append(attrs, "error", a.ErrorCode)
	}
	if a.StartedAtMs != nil && a.FinishedAtMs != nil {
		attrs = append(attrs, "duration_ms", *a.FinishedAtMs-*a.StartedAtMs)
	}
	return attrs
}
