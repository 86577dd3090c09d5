package schedule

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

func TestCheckDecisionAcceptsOnlyTheDecidersOwnDecision(t *testing.T) {
	t.Parallel()
	cursor := int64(1_700_000_000_000)
	due := ticket("t1", &cursor, cursor+1_000, trigger.FireOnce)
	fresh := ticket("t2", nil, cursor, trigger.FireOnce)
	admit := func(tk Ticket) CommitParams {
		p := CommitParams{Ticket: tk, GraceMs: 30_000, RunID: ids.New(), AttemptID: ids.New()}
		p.Decision, _ = DecideTicket(tk, p.GraceMs)
		return p
	}
	initialise := CommitParams{Ticket: fresh, GraceMs: 30_000}
	initialise.Decision, _ = DecideTicket(fresh, initialise.GraceMs)
	if admit(due).Decision.Action != Admit || initialise.Decision.Action != Initialize {
		t.Fatalf("fixtures decide %s and %s, want admit and initialize", admit(due).Decision.Action, initialise.Decision.Action)
	}
	cases := map[string]struct {
		p    CommitParams
		want Reason
	}{
		"the decider's admit":      {admit(due), ""},
		"the decider's initialise": {initialise, ""},
		"another next cursor":      {func() CommitParams { p := admit(due); p.Decision.NextFireAtMs += 60_000; return p }(), ReasonDecisionMismatch},
		"another grace": {func() CommitParams {
			late := ticket("t3", &cursor, cursor+10*minute, trigger.Skip)
			p := CommitParams{Ticket: late, GraceMs: 30_000}
			p.Decision, _ = DecideTicket(late, p.GraceMs)
			p.GraceMs = 60 * minute
			return p
		}(), ReasonDecisionMismatch},
		"an admit without ids":       {func() CommitParams { p := admit(due); p.RunID = ""; return p }(), ReasonDecisionMismatch},
		"one id for run and attempt": {func() CommitParams { p := admit(due); p.AttemptID = p.RunID; return p }(), ReasonDecisionMismatch},
		"ids for an initialise":      {func() CommitParams { p := initialise; p.RunID = ids.New(); return p }(), ReasonDecisionMismatch},
		"an unparsable cron":         {func() CommitParams { p := admit(due); p.Ticket.Cron.Timezone = "Nowhere/Else"; return p }(), ReasonCronInvalid},
	}
	for name, c := range cases {
		if got := CheckDecision(c.p); got != c.want {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
	}
}

// consistent is a ticket and the stored facts it was taken against.
func consistent(t *testing.T) (Ticket, Stored) {
	t.Helper()
	projectID, taskID, triggerID := ids.New(), ids.New(), ids.New()
	tk := task.Revision{TaskID: taskID, ProjectID: projectID, Revision: 1, Spec: task.Spec{Name: "job", Enabled: true,
		Command: task.Command{Mode: task.ModeArgv, Path: "/usr/bin/env", Args: []string{"true"}, TimeoutMs: 60_000}}}
	tk.ContentDigest = task.ContentDigest(projectID, taskID, tk.Spec)
	tg := trigger.Revision{TriggerID: triggerID, ProjectID: projectID, Revision: 2, TaskID: taskID, TaskRevision: 1,
		TaskContentDigest: tk.ContentDigest, CreatedAtMs: t0 - minute,
		Spec: trigger.Spec{Name: "tick", Enabled: true, Cron: trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}}}
	tg.ContentDigest = trigger.ContentDigest(projectID, triggerID, taskID, 1, tk.ContentDigest, tg.Spec)
	cursor := t0
	ticket := Ticket{Snapshot: Snapshot{ProjectID: projectID, TriggerID: triggerID, TriggerRevision: 2, TriggerContentDigest: tg.ContentDigest,
		TriggerCreatedAtMs: tg.CreatedAtMs, Cron: tg.Spec.Cron, TaskID: taskID, TaskRevision: 1, TaskContentDigest: tk.ContentDigest,
		NextFireAtMs: &cursor, StateVersion: 7}, ObservedAtMs: t0 + 1}
	stored := Stored{ProjectStatus: project.Active, TriggerHeadRevision: 2, TriggerHeadTaskID: taskID, Trigger: tg, TriggerKind: trigger.SpecKind,
		TaskHeadRevision: 1, Task: tk, RowRevision: 2, StateVersion: 7, NextFireAtMs: &cursor}
	return ticket, stored
}

func TestVerifySnapshotNamesTheFirstItemThatNoLongerHolds(t *testing.T) {
	t.Parallel()
	moved := t0 - minute
	cases := map[string]struct {
		change func(*Ticket, *Stored)
		want   Reason
	}{
		"nothing":                {func(*Ticket, *Stored) {}, ""},
		"archived":               {func(_ *Ticket, s *Stored) { s.ProjectStatus = project.Archived }, ReasonProjectInactive},
		"republished trigger":    {func(_ *Ticket, s *Stored) { s.TriggerHeadRevision = 3 }, ReasonTriggerRevisionChanged},
		"republished task":       {func(_ *Ticket, s *Stored) { s.TaskHeadRevision = 2 }, ReasonTaskRevisionChanged},
		"another trigger digest": {func(tk *Ticket, _ *Stored) { tk.TriggerContentDigest = "sha256:x" }, ReasonTriggerSnapshotMismatch},
		"another task pin":       {func(tk *Ticket, _ *Stored) { tk.TaskContentDigest = "sha256:x" }, ReasonTaskSnapshotMismatch},
		"renamed in place":       {func(_ *Ticket, s *Stored) { s.Trigger.Spec.Name = "renamed" }, ReasonTriggerDigestCorrupt},
		"task altered in place":  {func(_ *Ticket, s *Stored) { s.Task.Spec.Command.Args = []string{"rm"} }, ReasonTaskDigestCorrupt},
		"not a cron trigger":     {func(_ *Ticket, s *Stored) { s.TriggerKind = "other" }, ReasonTriggerNotSchedulable},
		"moved row":              {func(_ *Ticket, s *Stored) { s.StateVersion++ }, ReasonStateVersionChanged},
		"cursor without a bump":  {func(_ *Ticket, s *Stored) { s.NextFireAtMs = &moved }, ReasonCursorDrift},
		// The time policies are part of the snapshot: a ticket carrying
		// others than the stored revision's never commits.
		"another jitter":        {func(tk *Ticket, _ *Stored) { tk.Cron.JitterMs = 1_000 }, ReasonTriggerSnapshotMismatch},
		"another endAt":         {func(tk *Ticket, _ *Stored) { tk.Cron.EndAtMs = t0 }, ReasonTriggerSnapshotMismatch},
		"another window":        {func(tk *Ticket, _ *Stored) { tk.Cron.HasCatchUpWindow = true }, ReasonTriggerSnapshotMismatch},
		"jitter added in place": {func(tk *Ticket, s *Stored) { s.Trigger.Spec.Cron.JitterMs = 1_000; tk.Cron.JitterMs = 1_000 }, ReasonTriggerDigestCorrupt},
		// Corruption outranks a race: a stale ticket over altered content
		// still reports the content.
		"moved row over altered content": {func(_ *Ticket, s *Stored) { s.StateVersion++; s.Trigger.Spec.Name = "renamed" }, ReasonTriggerDigestCorrupt},
	}
	for name, c := range cases {
		tk, s := consistent(t)
		c.change(&tk, &s)
		if got := VerifySnapshot(tk, s); got != c.want {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
	}
}
