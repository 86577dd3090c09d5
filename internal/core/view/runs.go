package view

import (
	"encoding/json"

	"github.com/qinglong/qinglong/internal/core/run"
)

// Run is the stable shape of a Run.
type Run struct {
	ID              string `json:"id"`
	ProjectID       string `json:"projectId"`
	ProjectName     string `json:"projectName,omitempty"`
	TaskID          string `json:"taskId"`
	TaskRevision    int64  `json:"taskRevision"`
	TriggerID       string `json:"triggerId,omitempty"`
	TriggerRevision int64  `json:"triggerRevision,omitempty"`
	TriggerName     string `json:"triggerName,omitempty"`
	// TriggerTitle is the trigger's display title now; absent when it has
	// none.
	TriggerTitle string `json:"triggerTitle,omitempty"`
	// TaskName is the task's name at TaskRevision: what ran.
	TaskName            string `json:"taskName,omitempty"`
	ExecutionRevisionID string `json:"executionRevisionId"`
	IdempotencyKey      string `json:"idempotencyKey"`
	ScheduledForMs      int64  `json:"scheduledForMs"`
	// DueAtMs is the jittered instant the Run was admitted for; absent
	// for a Run admitted before it was recorded.
	DueAtMs      int64     `json:"dueAtMs,omitempty"`
	State        run.State `json:"state"`
	Version      int64     `json:"version"`
	LastEventSeq int64     `json:"lastEventSeq"`
	CreatedAtMs  int64     `json:"createdAtMs"`
	QueuedAtMs   int64     `json:"queuedAtMs,omitempty"`
	UpdatedAtMs  int64     `json:"updatedAtMs"`
	FinishedAtMs *int64    `json:"finishedAtMs"`
	// RanMs is, once the Run has finished, how long its attempts ran,
	// added up, each from its start to its end (no queue, no wait between
	// retries); absent before it finishes.
	RanMs *int64 `json:"ranMs,omitempty"`
	// RanMsIsLowerBound says RanMs counts only until the worker was last
	// heard from: the Run was lost when its worker stopped renewing, and
	// its command may have run on after that.
	RanMsIsLowerBound bool `json:"ranMsIsLowerBound,omitempty"`
	// RerunOf is the finished Run this one re-runs.
	RerunOf string `json:"rerunOf,omitempty"`
	// Origin is what admitted the Run: clock, run_now, rerun or backfill.
	// It says what DueAtMs is: the clock's and a backfill's occurrence with
	// its trigger's jitter added, or the instant a person's request was made
	// (a re-run keeps the original's ScheduledForMs, so its due time is not
	// that plus jitter).
	Origin run.Origin `json:"origin,omitempty"`
	// ErrorCode is how a Run that failed, timed out or was lost ended: its
	// last attempt's errorCode, and ExitCode that attempt's exitCode when
	// its command exited on its own. Both absent for a Run in any other
	// state.
	ErrorCode string `json:"errorCode,omitempty"`
	ExitCode  *int64 `json:"exitCode,omitempty"`
	// Worker is the cluster worker that holds or held the Run's latest
	// attempt; absent on a profile without workers or before one took it.
	Worker string `json:"worker,omitempty"`
}

// Attempt is the stable shape of an Attempt (without its log path and
// process id, which only the server uses).
type Attempt struct {
	ID       string           `json:"id"`
	Number   int64            `json:"number"`
	Executor string           `json:"executor"`
	State    run.AttemptState `json:"state"`
	// StateText is State in English words, read with its Run's state: a
	// claimed attempt waits to start, or (its Run dispatching) was granted
	// to a worker that has not started it yet.
	StateText    string `json:"stateText"`
	ExitCode     *int64 `json:"exitCode"`
	ErrorCode    string `json:"errorCode,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	Worker       string `json:"worker,omitempty"`
	CreatedAtMs  int64  `json:"createdAtMs"`
	StartedAtMs  *int64 `json:"startedAtMs"`
	FinishedAtMs *int64 `json:"finishedAtMs"`
	LogBytes     int64  `json:"logBytes"`
	LogTruncated bool   `json:"logTruncated"`
}

// Event is the stable shape of an Event; its payload is embedded as JSON.
type Event struct {
	Seq         int64           `json:"seq"`
	Name        string          `json:"name"`
	Payload     json.RawMessage `json:"payload"`
	CreatedAtMs int64           `json:"createdAtMs"`
}

// RunList is one page of runs and the cursor of the next.
type RunList struct {
	Runs []Run  `json:"runs"`
	Next string `json:"next,omitempty"`
}

// RunDetail is a run with its attempts and events.
type RunDetail struct {
	Run      Run       `json:"run"`
	Attempts []Attempt `json:"attempts"`
	Events   []Event   `json:"events"`
	// Waiting is present only while the Run is queued and will not start
	// now: on the cluster no worker can take it, on a single-node server
	// that server does not start it yet.
	Waiting *Waiting `json:"waiting,omitempty"`
	// RerunAs are the Runs that re-run this one (each with this one as
	// its rerunOf), newest first, at most run.MaxRerunAs; absent when it
	// was never re-run.
	RerunAs []string `json:"rerunAs,omitempty"`
	// NoServer is present only for a dispatching or running Run read
	// from a single-node data directory no server serves (its server was
	// killed): nothing watches its command until the next server's
	// recovery ends the attempt lost.
	NoServer *NoServer `json:"noServer,omitempty"`
}

// NoServer is the stable shape of what a read from a single-node data
// directory no server serves must say: a Run left running by a server
// that is gone (runs show), or overdue triggers nothing decides
// (triggers list).
type NoServer struct {
	// DataDir is the data directory no server serves.
	DataDir string `json:"dataDir"`
	// Message says what becomes of the Run or the triggers, with the
	// command that serves the directory.
	Message string `json:"message" cmdname:"said"`
}

// Waiting is the stable shape of why a queued Run has not started.
type Waiting struct {
	Reason run.WaitReason `json:"reason"`
	// Labels are the labels the task's placement requires ({} for none),
	// and Workers the live workers the reason counts: the cluster's, whose
	// workers run its Runs, always gives both; a single-node server, which
	// has no workers and runs every Run itself, gives neither.
	Labels       map[string]string   `json:"labels,omitzero"`
	Workers      *int                `json:"workers,omitzero"`
	WorkerLabels []map[string]string `json:"workerLabels,omitempty"`
	// Reads is, for workers_too_old, the grant field none of the Workers
	// carrying the labels reads (projectEnv).
	Reads string `json:"reads,omitempty"`
	// PreviousRun is the earlier Run a waits_for_previous Run is held
	// behind.
	PreviousRun string `json:"previousRun,omitempty"`
	// Overlap is the overlap policy (queue_one, cancel_previous) that
	// holds a waits_for_previous Run, as its trigger's revision that
	// admitted it says.
	Overlap string `json:"overlap,omitempty"`
	// Running is how many Runs hold one of a single-node server's slots
	// (server_busy, server_starting), Concurrency how many slots it has
	// (0: not known to the reader, which read the database beside a
	// server that has not recorded it).
	Running     int `json:"running,omitempty"`
	Concurrency int `json:"concurrency,omitempty"`
	// Project is, for project_busy and project_archived, the Run's project;
	// MaxRunning, for project_busy, its cap; Running then counts the project's Runs holding a slot.
	Project    string `json:"project,omitempty"`
	MaxRunning int    `json:"maxRunning,omitempty"`
	// Holders are, for server_busy, the triggers whose Runs hold the
	// server's slots, most first (at most run.MaxSlotHolders), and
	// MoreHolders how many other triggers hold one.
	Holders     []SlotHolder `json:"holders,omitempty"`
	MoreHolders int          `json:"moreHolders,omitempty"`
	// OtherProjectsRuns is, to an API token bound to projects, how many
	// Runs of other projects' triggers hold the slots, never named.
	OtherProjectsRuns int `json:"otherProjectsRuns,omitempty"`
	// ServerPID and ServerStartedAtMs are, read with --data-dir beside a
	// running server, that server's pid and start, from the record it
	// keeps beside its lock.
	ServerPID         int   `json:"serverPid,omitempty"`
	ServerStartedAtMs int64 `json:"serverStartedAtMs,omitempty"`
	// DataDir is the data directory no server serves (no_server);
	// HandedOver, that its database was handed over and waits for a
	// take-back.
	DataDir    string `json:"dataDir,omitempty"`
	HandedOver bool   `json:"handedOver,omitempty"`
	// Message is Reason in English words, with what to do.
	Message string `json:"message" cmdname:"said"`
}

// SlotHolder is a trigger whose Runs hold some of a single-node server's
// slots.
type SlotHolder struct {
	TriggerID string `json:"triggerId"`
	Project   string `json:"project"`
	Trigger   string `json:"trigger"`
	Runs      int    `json:"runs"`
}

// NewRun shapes r.
func NewRun(r run.Run) Run {
	return Run{
		ID: r.ID, ProjectID: r.ProjectID, ProjectName: r.ProjectName, TaskID: r.TaskID, TaskRevision: r.TaskRevision,
		TriggerID: r.TriggerID, TriggerRevision: r.TriggerRevision, TriggerName: r.TriggerName, TriggerTitle: r.TriggerTitle, TaskName: r.TaskName, ExecutionRevisionID: r.ExecutionRevisionID,
		IdempotencyKey: r.IdempotencyKey, ScheduledForMs: r.ScheduledForMs, DueAtMs: r.DueAtMs, State: r.State, Version: r.Version,
		LastEventSeq: r.LastEventSeq, CreatedAtMs: r.CreatedAtMs, QueuedAtMs: r.QueuedAtMs, UpdatedAtMs: r.UpdatedAtMs,
		FinishedAtMs: r.FinishedAtMs, RanMs: r.RanMs, RanMsIsLowerBound: r.RanUntilLastHeard, RerunOf: r.RerunOf, Origin: r.Origin, ErrorCode: r.ErrorCode,
		ExitCode: r.ExitCode, Worker: r.WorkerName,
	}
}

// NewRunList shapes a page of runs.
func NewRunList(list []run.Run, next string) RunList {
	out := RunList{Runs: make([]Run, 0, len(list)), Next: next}
	for _, x := range list {
		out.Runs = append(out.Runs, NewRun(x))
	}
	return out
}

// NewWaiting shapes w; nil for nil.
func NewWaiting(w *run.Waiting) *Waiting {
	if w == nil {
		return nil
	}
	var holders []SlotHolder
	for _, h := range w.Holders {
		holders = append(holders, SlotHolder(h))
	}
	out := &Waiting{Reason: w.Reason, WorkerLabels: w.WorkerLabels, Reads: w.Reads,
		PreviousRun: w.PreviousRun, Overlap: w.Overlap, Running: w.Running, Concurrency: w.Concurrency, Holders: holders, MoreHolders: w.MoreHolders, OtherProjectsRuns: w.OtherProjectsRuns, ServerPID: w.ServerPID, ServerStartedAtMs: w.ServerStartedAtMs, DataDir: w.DataDir, HandedOver: w.HandedOver, Project: w.Project, MaxRunning: w.MaxRunning, Message: w.Message()}
	if !w.SingleNode {
		workers := w.Workers
		out.Labels, out.Workers = w.Labels, &workers
		if out.Labels == nil {
			out.Labels = map[string]string{}
		}
	}
	return out
}

// RunOf is the waiting reason v shows, back in the model's terms.
func (v *Waiting) RunOf() *run.Waiting {
	if v == nil {
		return nil
	}
	var holders []run.SlotHolder
	for _, h := range v.Holders {
		holders = append(holders, run.SlotHolder(h))
	}
	w := &run.Waiting{Reason: v.Reason, Labels: v.Labels, WorkerLabels: v.WorkerLabels, Reads: v.Reads, PreviousRun: v.PreviousRun, Overlap: v.Overlap,
		Running: v.Running, Concurrency: v.Concurrency, Holders: holders, MoreHolders: v.MoreHolders, OtherProjectsRuns: v.OtherProjectsRuns, ServerPID: v.ServerPID, ServerStartedAtMs: v.ServerStartedAtMs, DataDir: v.DataDir, HandedOver: v.HandedOver, Project: v.Project, MaxRunning: v.MaxRunning,
		SingleNode: v.Workers == nil}
	if v.Workers != nil {
		w.Workers = *v.Workers
	}
	return w
}

// NewRunDetail shapes d. A payload that is not valid JSON is shown as {}
// rather than breaking the document.
func NewRunDetail(d run.Detail) RunDetail {
	out := RunDetail{Run: NewRun(d.Run), Attempts: make([]Attempt, 0, len(d.Attempts)), Events: make([]Event, 0, len(d.Events)), RerunAs: d.RerunAs}
	out.Waiting = NewWaiting(d.Waiting)
	for _, x := range d.Attempts {
		out.Attempts = append(out.Attempts, Attempt{
			ID: x.ID, Number: x.Number, Executor: x.Executor, State: x.State, StateText: run.AttemptStateText(d.Run.State, x.State), ExitCode: x.ExitCode, ErrorCode: x.ErrorCode,
			ErrorMessage: x.ErrorMessage, Worker: x.WorkerName,
			CreatedAtMs: x.CreatedAtMs, StartedAtMs: x.StartedAtMs, FinishedAtMs: x.FinishedAtMs, LogBytes: x.LogBytes, LogTruncated: x.LogTruncated,
		})
	}
	for _, e := range d.Events {
		payload := json.RawMessage(e.Payload)
		if !json.Valid(payload) {
			payload = json.RawMessage("{}")
		}
		out.Events = append(out.Events, Event{Seq: e.Seq, Name: e.Name, Payload: payload, CreatedAtMs: e.CreatedAtMs})
	}
	return out
}

// What one cancel did to its Run, as the API answers it ("effect") and
// `ql runs cancel` tells it.
const (
	// CancelCancelled: this cancel ended the Run cancelled, before its
	// command started.
	CancelCancelled = "cancelled"
	// CancelClosedLost: this cancel closed a lost Run (nothing ran it any
	// more) cancelled.
	CancelClosedLost = "closed_lost"
	// CancelStopRequested: the Run has not ended; its command is being
	// stopped, and the Run ends cancelled once it is.
	CancelStopRequested = "stop_requested"
	// CancelNothing: the Run had ended already; nothing changed.
	CancelNothing = "none"
)

// NewCancelEffect names what a cancel that left r as it is did (eff).
func NewCancelEffect(r run.Run, eff run.CancelEffect) string {
	switch {
	case eff.Finished:
		return CancelCancelled
	case eff.ClosedLost:
		return CancelClosedLost
	case r.State.Terminal():
		return CancelNothing
	}
	return CancelStopRequested
}

// CancelEffectOf is the effect NewCancelEffect named.
func CancelEffectOf(name string) run.CancelEffect {
	return run.CancelEffect{Finished: name == CancelCancelled, ClosedLost: name == CancelClosedLost}
}
