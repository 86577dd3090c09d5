package view

import (
	"cmp"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// Cron is a trigger's schedule.
type Cron struct {
	Expression    string `json:"expression"`
	Timezone      string `json:"timezone"`
	MisfirePolicy string `json:"misfirePolicy"`
	// The time policies, each absent when not set.
	JitterMs        int64  `json:"jitterMs,omitempty"`
	StartAtMs       int64  `json:"startAtMs,omitempty"`
	EndAtMs         int64  `json:"endAtMs,omitempty"`
	CatchUpWindowMs *int64 `json:"catchUpWindowMs,omitempty"`
	// Overlap is absent for the default, allow.
	Overlap string `json:"overlap,omitempty"`
}

// NewCron shapes c.
func NewCron(c trigger.Cron) Cron {
	out := Cron{Expression: c.Expression, Timezone: c.Timezone, MisfirePolicy: string(c.MisfirePolicy),
		JitterMs: c.JitterMs, StartAtMs: c.StartAtMs, EndAtMs: c.EndAtMs, Overlap: string(c.Overlap)}
	if c.HasCatchUpWindow {
		w := c.CatchUpWindowMs
		out.CatchUpWindowMs = &w
	}
	return out
}

// OverlapPolicy is c's overlap policy as a definitions file spells it:
// "allow" for the default, which the JSON leaves out.
func (c Cron) OverlapPolicy() string { return cmp.Or(c.Overlap, "allow") }

// Policy is one time policy a trigger sets, for a reader to print.
type Policy struct {
	// Name is the field as a definitions file spells it: jitter, startAt,
	// endAt or catchUpWindow.
	Name string
	// Ms is a duration (jitter, catchUpWindow) or, when Instant, a Unix
	// instant (startAt, endAt), in milliseconds.
	Ms      int64
	Instant bool
}

// Policies are the time policies c sets, in the order a definitions file
// lists them: `ql triggers show` and the console's trigger page print the
// same ones.
func (c Cron) Policies() []Policy {
	var out []Policy
	if c.JitterMs > 0 {
		out = append(out, Policy{Name: "jitter", Ms: c.JitterMs})
	}
	if c.StartAtMs != 0 {
		out = append(out, Policy{Name: "startAt", Ms: c.StartAtMs, Instant: true})
	}
	if c.EndAtMs != 0 {
		out = append(out, Policy{Name: "endAt", Ms: c.EndAtMs, Instant: true})
	}
	if c.CatchUpWindowMs != nil {
		out = append(out, Policy{Name: "catchUpWindow", Ms: *c.CatchUpWindowMs})
	}
	return out
}

// Trigger is a trigger's current revision with its schedule state.
type Trigger struct {
	ProjectID   string `json:"projectId"`
	ProjectName string `json:"projectName"`
	TriggerID   string `json:"triggerId"`
	Name        string `json:"name"`
	// Title, TaskTitle and ProjectTitle are the display titles of the
	// trigger, its task and its project, each absent when it has none.
	Title        string `json:"title,omitempty"`
	TaskTitle    string `json:"taskTitle,omitempty"`
	ProjectTitle string `json:"projectTitle,omitempty"`
	Revision     int64  `json:"revision"`
	Enabled      bool   `json:"enabled"`
	// Paused: no occurrence runs until the trigger is resumed.
	Paused bool `json:"paused"`
	// PausedWithProject: the pause in force is its project's (`ql
	// projects pause`); the project's resume resumes it.
	PausedWithProject bool   `json:"pausedWithProject,omitempty"`
	Cron              Cron   `json:"cron"`
	TaskID            string `json:"taskId"`
	TaskName          string `json:"taskName"`
	TaskRevision      int64  `json:"taskRevision"`
	// NextFireAtMs is the next nominal fire time; nil while uninitialised,
	// once Ended, and when NextFireUnknown says why it is not worked out.
	NextFireAtMs *int64 `json:"nextFireAtMs"`
	// NextDueAtMs is when the row is taken: the next fire time plus its
	// jitter; nil as NextFireAtMs.
	NextDueAtMs *int64 `json:"nextDueAtMs"`
	// Ended: the trigger's endAt lies before its next occurrence; it will
	// not fire again unless republished.
	Ended bool `json:"ended,omitempty"`
	// Archived: the trigger's project is archived; nothing of it runs
	// until the project is made active again, and it has no next fire.
	Archived bool `json:"archived,omitempty"`
	// NextFireUnknown, when set, is why this server cannot work out the
	// trigger's next fire (a stored zone the zone database of its host
	// lacks), in the words of its refusals: the stored cursor, left by a
	// server that read the zone, is then no time this one's scheduler
	// fires at, and is not shown.
	NextFireUnknown   string  `json:"nextFireUnknown,omitempty" cmdname:"said"`
	LastScheduledAtMs *int64  `json:"lastScheduledAtMs"`
	StateVersion      int64   `json:"stateVersion"`
	ClaimOwner        *string `json:"claimOwner"`
	ClaimExpiresAtMs  *int64  `json:"claimExpiresAtMs"`
	// LastRun is the trigger's newest Run, the one admitted last; absent
	// when it has none.
	LastRun *LastRun `json:"lastRun,omitempty"`
	// Warnings are the overlap warnings (WarningsOf) its Runs read with
	// its last Run give it; absent when there is none, or when its Runs
	// were not read.
	Warnings []Warning `json:"warnings,omitempty"`
	// FoundIn is where a search found the trigger: name (its names and
	// titles), script (its task's shell script) or command (its task's
	// argv program and arguments); absent from a listing without a search.
	FoundIn schedule.SearchField `json:"foundIn,omitempty"`
}

// LastRun is a trigger's newest Run as the triggers list shows it beside
// the trigger: enough to tell whether its job succeeds without opening
// the Run.
type LastRun struct {
	ID             string    `json:"id"`
	State          run.State `json:"state"`
	ScheduledForMs int64     `json:"scheduledForMs"`
	// FinishedAtMs is absent while the Run has not ended.
	FinishedAtMs *int64 `json:"finishedAtMs,omitempty"`
	// CreatedAtMs is when the Run was admitted; RerunOf, for a rerun, the
	// Run it repeats, whose occurrence ScheduledForMs is; Origin what
	// admitted it (clock, run_now, rerun, backfill): a backfill's Run is
	// for an older occurrence too.
	CreatedAtMs int64      `json:"createdAtMs"`
	RerunOf     string     `json:"rerunOf,omitempty"`
	Origin      run.Origin `json:"origin,omitempty"`
}

// ListedAtMs is the time the triggers lists show beside the Run
// (run.ListedAt): its admission for a rerun or a backfill, else its
// occurrence.
func (l LastRun) ListedAtMs() int64 {
	return run.ListedAt(l.ScheduledForMs, l.CreatedAtMs, l.Mark())
}

// Mark is what the triggers lists mark the Run with (run.ListedMark).
func (l LastRun) Mark() run.Origin { return run.ListedMark(l.RerunOf, l.Origin) }

// TriggerList is one page of triggers and the cursor of the next.
type TriggerList struct {
	Triggers []Trigger `json:"triggers"`
	Next     string    `json:"next,omitempty"`
	// LastRunsUnknown, when set, says why no trigger of the page carries
	// its last Run (a database role that may not read Runs) and what to do,
	// so that a missing lastRun is not read as a trigger that never ran.
	LastRunsUnknown string `json:"lastRunsUnknown,omitempty"`
	// NoServer is present only in a listing read from a single-node data
	// directory no server serves, when a trigger of the page is overdue:
	// its next fire lies in the past because nothing decides it, as
	// runs show's noServer says of a Run.
	NoServer *NoServer `json:"noServer,omitempty"`
}

// NewTriggerList shapes a page of triggers, each with its newest Run of
// last (run.LastReader's answer for the page; nil when none was read).
func NewTriggerList(list []schedule.TriggerStatus, next string, last map[string]run.Last) TriggerList {
	out := TriggerList{Triggers: make([]Trigger, 0, len(list)), Next: next}
	for _, t := range list {
		var lastRun *LastRun
		var warnings []Warning
		if l, ok := last[t.TriggerID]; ok {
			lastRun = &LastRun{ID: l.RunID, State: l.State, ScheduledForMs: l.ScheduledForMs, FinishedAtMs: l.FinishedAtMs, CreatedAtMs: l.CreatedAtMs, RerunOf: l.RerunOf, Origin: l.Origin}
			warnings = WarningsOf(NewCron(t.Cron), l)
		}
		out.Triggers = append(out.Triggers, Trigger{
			ProjectID: t.ProjectID, ProjectName: t.ProjectName, TriggerID: t.TriggerID, Name: t.Name, Revision: t.Revision,
			Title: t.Title, TaskTitle: t.TaskTitle, ProjectTitle: t.ProjectTitle,
			Enabled: t.Enabled, Paused: t.Paused, PausedWithProject: t.PausedWithProject, Cron: NewCron(t.Cron),
			TaskID: t.TaskID, TaskName: t.TaskName, TaskRevision: t.TaskRevision, NextFireAtMs: t.NextFireAtMs,
			NextDueAtMs: t.NextDueAtMs, Ended: t.Ended, Archived: t.Archived,
			LastScheduledAtMs: t.LastScheduledAtMs, StateVersion: t.StateVersion, ClaimOwner: t.ClaimOwner, ClaimExpiresAtMs: t.ClaimExpiresAtMs,
			LastRun: lastRun, Warnings: warnings, FoundIn: t.FoundIn,
		})
		if err := schedule.CheckStoredCron(t.TriggerID, t.Cron); err != nil {
			v := &out.Triggers[len(out.Triggers)-1]
			v.NextFireUnknown, v.NextFireAtMs, v.NextDueAtMs = err.Error(), nil, nil
		}
	}
	return out
}

// TriggerIDs are the ids of list, for run.LastReader.
func TriggerIDs(list []schedule.TriggerStatus) []string {
	out := make([]string, len(list))
	for i, t := range list {
		out[i] = t.TriggerID
	}
	return out
}
