package view

import (
	"cmp"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// Cron is a trigger's schedule.
type Cron struct {
	Expression    string `json:"expression" doc:"The trigger's cron expression, as its definitions file gives it."`
	Timezone      string `json:"timezone" doc:"The IANA time zone the expression is read in."`
	MisfirePolicy string `json:"misfirePolicy" doc:"What an occurrence missed by more than the grace period does: skip (dropped) or fire_once (the oldest missed one runs once)."`
	// The time policies, each absent when not set.
	JitterMs        int64  `json:"jitterMs,omitempty" doc:"The most each occurrence is delayed by, in milliseconds (a fixed offset per occurrence below it); absent for none."`
	StartAtMs       int64  `json:"startAtMs,omitempty" doc:"The first instant the trigger has occurrences from, Unix time in milliseconds; absent when unbounded."`
	EndAtMs         int64  `json:"endAtMs,omitempty" doc:"The last instant the trigger has occurrences until, Unix time in milliseconds; absent when unbounded."`
	CatchUpWindowMs *int64 `json:"catchUpWindowMs,omitempty" doc:"Under fire_once, how old a missed occurrence may be and still run, in milliseconds; absent when not set."`
	// Overlap is absent for the default, allow.
	Overlap string `json:"overlap,omitempty" doc:"What an occurrence does while an earlier Run of the trigger is unfinished: skip, queue_one or cancel_previous; absent for the default, allow."`
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
	ProjectID   string `json:"projectId" doc:"The id of the trigger's project."`
	ProjectName string `json:"projectName" doc:"The trigger's project's name."`
	TriggerID   string `json:"triggerId" doc:"The trigger's id, a UUID."`
	Name        string `json:"name" doc:"The trigger's name within its project."`
	// Title, TaskTitle and ProjectTitle are the display titles of the
	// trigger, its task and its project, each absent when it has none.
	Title        string `json:"title,omitempty" doc:"The trigger's display title; absent when it has none."`
	TaskTitle    string `json:"taskTitle,omitempty" doc:"Its task's display title; absent when it has none."`
	ProjectTitle string `json:"projectTitle,omitempty" doc:"Its project's display title; absent when it has none."`
	Revision     int64  `json:"revision" doc:"The trigger's current revision, one more at each change an apply, enable or disable publishes."`
	Enabled      bool   `json:"enabled" doc:"Whether the trigger is enabled; a disabled one has no occurrences."`
	// Paused: no occurrence runs until the trigger is resumed.
	Paused bool `json:"paused" doc:"True while the trigger is paused: no occurrence runs until it is resumed."`
	// PausedWithProject: the pause in force is its project's (`ql
	// projects pause`); the project's resume resumes it.
	PausedWithProject bool   `json:"pausedWithProject,omitempty" doc:"True when the pause in force is its project's (ql projects pause), which the project's resume lifts; absent otherwise."`
	Cron              Cron   `json:"cron" doc:"The trigger's schedule."`
	TaskID            string `json:"taskId" doc:"The id of the task the trigger runs."`
	TaskName          string `json:"taskName" doc:"The name of the task the trigger runs."`
	TaskRevision      int64  `json:"taskRevision" doc:"The task's revision the trigger's Runs run."`
	// NextFireAtMs is the next nominal fire time; nil while uninitialised,
	// once Ended, and when NextFireUnknown says why it is not worked out.
	NextFireAtMs *int64 `json:"nextFireAtMs" doc:"The next occurrence's nominal time, Unix time in milliseconds; null before the server first reads the trigger, once ended, for an archived project, and when nextFireUnknown says why it is not worked out."`
	// NextDueAtMs is when the row is taken: the next fire time plus its
	// jitter; nil as NextFireAtMs.
	NextDueAtMs *int64 `json:"nextDueAtMs" doc:"When the next occurrence is taken: nextFireAtMs plus its jitter, Unix time in milliseconds; null when nextFireAtMs is."`
	// Ended: the trigger's endAt lies before its next occurrence; it will
	// not fire again unless republished.
	Ended bool `json:"ended,omitempty" doc:"True when the trigger's endAt lies before its next occurrence: it will not fire again unless republished; absent otherwise."`
	// Archived: the trigger's project is archived; nothing of it runs
	// until the project is made active again, and it has no next fire.
	Archived bool `json:"archived,omitempty" doc:"True when the trigger's project is archived: nothing of it runs until the project is made active again; absent otherwise."`
	// NextFireUnknown, when set, is why this server cannot work out the
	// trigger's next fire (a stored zone the zone database of its host
	// lacks), in the words of its refusals: the stored cursor, left by a
	// server that read the zone, is then no time this one's scheduler
	// fires at, and is not shown.
	NextFireUnknown   string `json:"nextFireUnknown,omitempty" doc:"Why this server cannot work out the trigger's next fire (its stored time zone is missing from the zone database of the server's host) and what to do; absent when it can." cmdname:"said"`
	LastScheduledAtMs *int64 `json:"lastScheduledAtMs" doc:"The newest occurrence the clock admitted a Run for, Unix time in milliseconds; null before the first."`
	StateVersion      int64  `json:"stateVersion" doc:"The version of the trigger's schedule row, one more at each change of it (its next fire moving on, a pause, a resume)."`
	// ClaimOwner and ClaimExpiresAtMs are left out where no replica holds
	// the row, as always on a single node: its answers carry nothing of
	// the cluster.
	ClaimOwner       *string `json:"claimOwner,omitempty" doc:"Cluster only: the replica whose scheduler holds the trigger's schedule row right now; absent when none does, and always on a standalone or edge server."`
	ClaimExpiresAtMs *int64  `json:"claimExpiresAtMs,omitempty" doc:"Cluster only: when the replica's hold on the schedule row lapses, Unix time in milliseconds; absent when none holds it, and always on a standalone or edge server."`
	// LastRun is the trigger's newest Run, the one admitted last; absent
	// when it has none.
	LastRun *LastRun `json:"lastRun,omitempty" doc:"The trigger's newest Run, the one admitted last; absent when it has none."`
	// Warnings are the overlap warnings (WarningsOf) its Runs read with
	// its last Run give it; absent when there is none, or when its Runs
	// were not read.
	Warnings []Warning `json:"warnings,omitempty" doc:"What the trigger's reader is warned of (a backlog of queued Runs, or Runs cancelled before they started), worked out from its Runs; absent when there is none."`
	// FoundIn is where a search found the trigger: name (its names and
	// titles), script (its task's shell script) or command (its task's
	// argv program and arguments); absent from a listing without a search.
	FoundIn schedule.SearchField `json:"foundIn,omitempty" doc:"Where the listing's search found the trigger: name (its names and titles), script (its task's shell script) or command (its task's program and arguments); absent from a listing without a search."`
}

// LastRun is a trigger's newest Run as the triggers list shows it beside
// the trigger: enough to tell whether its job succeeds without opening
// the Run.
type LastRun struct {
	ID             string    `json:"id" doc:"The Run's id."`
	State          run.State `json:"state" doc:"The Run's state, as a Run's state."`
	ScheduledForMs int64     `json:"scheduledForMs" doc:"The occurrence the Run is for, Unix time in milliseconds; a re-run's is its original's."`
	// FinishedAtMs is absent while the Run has not ended.
	FinishedAtMs *int64 `json:"finishedAtMs,omitempty" doc:"When the Run reached a final state, Unix time in milliseconds; absent while it has not."`
	// CreatedAtMs is when the Run was admitted; RerunOf, for a rerun, the
	// Run it repeats, whose occurrence ScheduledForMs is; Origin what
	// admitted it (clock, run_now, rerun, backfill): a backfill's Run is
	// for an older occurrence too.
	CreatedAtMs int64      `json:"createdAtMs" doc:"When the Run was admitted, Unix time in milliseconds."`
	RerunOf     string     `json:"rerunOf,omitempty" doc:"For a re-run, the id of the Run it repeats; absent otherwise."`
	Origin      run.Origin `json:"origin,omitempty" doc:"What admitted the Run: clock, run_now, rerun or backfill."`
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
	Triggers []Trigger `json:"triggers" doc:"The page's triggers, in id order."`
	Next     string    `json:"next,omitempty" doc:"The cursor of the next page, given back as ?after=; absent on the last page."`
	// LastRunsUnknown, when set, says why no trigger of the page carries
	// its last Run (a database role that may not read Runs) and what to do,
	// so that a missing lastRun is not read as a trigger that never ran.
	LastRunsUnknown string `json:"lastRunsUnknown,omitempty" doc:"Cluster only: why no trigger of the page carries its lastRun (the server's database role may not read Runs) and what to do; absent when the last Runs were read."`
	// NoServer is present only in a listing read from a single-node data
	// directory no server serves, when a trigger of the page is overdue:
	// its next fire lies in the past because nothing decides it, as
	// runs show's noServer says of a Run.
	NoServer *NoServer `json:"noServer,omitempty" doc:"Standalone and edge only, and only in a read of the data directory itself (ql triggers list --data-dir), never in this API's answers: a trigger of the page is overdue because no server serves the directory."`
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
