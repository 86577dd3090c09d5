package view

import (
	"encoding/json"

	"github.com/qinglong/qinglong/internal/core/run"
)

// Run is the stable shape of a Run.
type Run struct {
	ID              string `json:"id" doc:"The Run's id, a UUID."`
	ProjectID       string `json:"projectId" doc:"The id of the Run's project."`
	ProjectName     string `json:"projectName,omitempty" doc:"The Run's project's current name."`
	TaskID          string `json:"taskId" doc:"The id of the task the Run runs."`
	TaskRevision    int64  `json:"taskRevision" doc:"The task's revision the Run runs, fixed when it was admitted: a later apply does not change it."`
	TriggerID       string `json:"triggerId,omitempty" doc:"The id of the trigger the Run is an occurrence of."`
	TriggerRevision int64  `json:"triggerRevision,omitempty" doc:"The trigger's revision that admitted the Run."`
	TriggerName     string `json:"triggerName,omitempty" doc:"The trigger's name at triggerRevision: what it was called when it admitted the Run."`
	// TriggerTitle is the trigger's display title now; absent when it has
	// none.
	TriggerTitle string `json:"triggerTitle,omitempty" doc:"The trigger's display title now; absent when it has none."`
	// TaskName is the task's name at TaskRevision: what ran.
	TaskName            string `json:"taskName,omitempty" doc:"The task's name at taskRevision: what ran."`
	ExecutionRevisionID string `json:"executionRevisionId" doc:"The id of the execution revision the Run runs: the immutable plan (command, env, working directory, timeout) written when its task revision was published."`
	IdempotencyKey      string `json:"idempotencyKey" doc:"What makes the Run's admission happen once: ql3:cron:v1:TRIGGER:REVISION:OCCURRENCE for a Run of the clock or a backfill, ql3:manual:v1:TRIGGER:REQUEST for run now, ql3:rerun:v1:RUN:REQUEST for a re-run."`
	ScheduledForMs      int64  `json:"scheduledForMs" doc:"The occurrence the Run is for, Unix time in milliseconds; a re-run keeps its original's."`
	// DueAtMs is the jittered instant the Run was admitted for; absent
	// for a Run admitted before it was recorded.
	DueAtMs      int64     `json:"dueAtMs,omitempty" doc:"When the Run was due, Unix time in milliseconds: the occurrence plus its trigger's jitter for a Run of the clock or a backfill, the instant of the request for run now and re-run; absent for a Run admitted before this was recorded, whose due time is scheduledForMs."`
	State        run.State `json:"state" doc:"The Run's state: created, queued, dispatching, running, retry_wait, succeeded, failed, cancelled, timed_out or lost (succeeded, failed, cancelled and timed_out are final)."`
	Version      int64     `json:"version" doc:"The Run's row version, one more at each change of the Run: a newer answer has a greater one."`
	LastEventSeq int64     `json:"lastEventSeq" doc:"The seq of the Run's newest event (events[].seq of its detail)."`
	CreatedAtMs  int64     `json:"createdAtMs" doc:"When the Run was admitted, Unix time in milliseconds."`
	QueuedAtMs   int64     `json:"queuedAtMs,omitempty" doc:"When the Run was last queued, Unix time in milliseconds (again after a retry's wait); absent before it is queued."`
	UpdatedAtMs  int64     `json:"updatedAtMs" doc:"When the Run last changed, Unix time in milliseconds."`
	FinishedAtMs *int64    `json:"finishedAtMs" doc:"When the Run reached a final state, Unix time in milliseconds; null while it has not."`
	// RanMs is, once the Run has finished, how long its attempts ran,
	// added up, each from its start to its end (no queue, no wait between
	// retries); absent before it finishes.
	RanMs *int64 `json:"ranMs,omitempty" doc:"Once the Run has finished, how long its attempts ran, added up, in milliseconds: each from its start to its end, without its time queued or between retries; absent before it finishes."`
	// RanMsIsLowerBound says RanMs counts only until the worker was last
	// heard from: the Run was lost when its worker stopped renewing, and
	// its command may have run on after that.
	RanMsIsLowerBound bool `json:"ranMsIsLowerBound,omitempty" doc:"Cluster only: true when the Run was lost because its worker stopped renewing, so ranMs counts only until the worker was last heard from and its command may have run on; absent otherwise."`
	// RerunOf is the finished Run this one re-runs.
	RerunOf string `json:"rerunOf,omitempty" doc:"The id of the finished Run this one re-runs; absent for a Run that is no re-run."`
	// Origin is what admitted the Run: clock, run_now, rerun or backfill.
	// It says what DueAtMs is: the clock's and a backfill's occurrence with
	// its trigger's jitter added, or the instant a person's request was made
	// (a re-run keeps the original's ScheduledForMs, so its due time is not
	// that plus jitter).
	Origin run.Origin `json:"origin,omitempty" doc:"What admitted the Run: clock, run_now, rerun or backfill."`
	// ErrorCode is how a Run that failed, timed out or was lost ended: its
	// last attempt's errorCode, and ExitCode that attempt's exitCode when
	// its command exited on its own. Both absent for a Run in any other
	// state.
	ErrorCode string `json:"errorCode,omitempty" doc:"How a failed, timed-out or lost Run ended: its last attempt's errorCode (exit_nonzero, killed_by_signal, timed_out, server_stopped, ...); absent for a Run in any other state."`
	ExitCode  *int64 `json:"exitCode,omitempty" doc:"The exit code of the last attempt's command, when the Run failed, timed out or was lost and that command exited on its own; absent otherwise."`
	// Worker is the cluster worker that holds or held the Run's latest
	// attempt; absent on a profile without workers or before one took it.
	Worker string `json:"worker,omitempty" doc:"Cluster only: the name of the worker that holds or held the Run's latest attempt; absent before a worker took it, and always on a standalone or edge server, which has no workers."`
}

// Attempt is the stable shape of an Attempt (without its log path and
// process id, which only the server uses).
type Attempt struct {
	ID       string           `json:"id" doc:"The attempt's id, a UUID."`
	Number   int64            `json:"number" doc:"The attempt's number within its Run, from 1: a retry is the next number."`
	Executor string           `json:"executor" doc:"What ran the attempt: local_process (the standalone or edge server itself) or remote_worker (a cluster worker)." edgedoc:"What ran the attempt: local_process, the server itself."`
	State    run.AttemptState `json:"state" doc:"The attempt's state: claimed, starting, running, succeeded, failed, timed_out, cancelled or lost."`
	// StateText is State in English words, read with its Run's state: a
	// claimed attempt waits to start, or (its Run dispatching) was granted
	// to a worker that has not started it yet.
	StateText    string `json:"stateText" doc:"state in English words, read with its Run's state (a claimed attempt waits to start, or was granted to a worker that has not started it yet)." edgedoc:"state in English words, read with its Run's state (a claimed attempt waits to start)."`
	ExitCode     *int64 `json:"exitCode" doc:"The command's exit code when it exited on its own; null otherwise (not started, still running, killed by a signal, lost)."`
	ErrorCode    string `json:"errorCode,omitempty" doc:"Why the attempt did not succeed (exit_nonzero, killed_by_signal, timed_out, spawn_failed, cancelled, ...); absent while it runs and when it succeeded."`
	ErrorMessage string `json:"errorMessage,omitempty" doc:"In English words, why the attempt ended as it did, when its runner gave a reason; absent otherwise."`
	Worker       string `json:"worker,omitempty" doc:"Cluster only: the name of the worker that held the attempt; absent for an attempt no worker has taken, and always on a standalone or edge server."`
	CreatedAtMs  int64  `json:"createdAtMs" doc:"When the attempt was made, Unix time in milliseconds."`
	StartedAtMs  *int64 `json:"startedAtMs" doc:"When its command started, Unix time in milliseconds; null before it starts and for one that never started."`
	FinishedAtMs *int64 `json:"finishedAtMs" doc:"When the attempt ended, Unix time in milliseconds; null while it has not."`
	LogBytes     int64  `json:"logBytes" doc:"How many bytes of output the attempt's log holds (GET /api/v1/runs/{id}/log?attempt=N reads them)."`
	LogTruncated bool   `json:"logTruncated" doc:"True when the command wrote more than the log keeps and its output was cut."`
}

// Event is the stable shape of an Event; its payload is embedded as JSON.
type Event struct {
	Seq         int64           `json:"seq" doc:"The event's place in its Run's history, from 1."`
	Name        string          `json:"name" doc:"What happened: run.created, run.queued, run.running, attempt.started, run.succeeded, run.failed, run.timed_out, run.cancelled, run.lost, run.dispatching, run.retry_wait, run.cancel_requested or run.waiting."`
	Payload     json.RawMessage `json:"payload" doc:"The event's facts, a JSON object whose fields depend on name ({} when none were stored); never secrets or output."`
	CreatedAtMs int64           `json:"createdAtMs" doc:"When it happened, Unix time in milliseconds."`
}

// RunList is one page of runs and the cursor of the next.
type RunList struct {
	Runs []Run  `json:"runs" doc:"The page's Runs, newest first."`
	Next string `json:"next,omitempty" doc:"The cursor of the next page, given back as ?after=; absent on the last page."`
}

// RunDetail is a run with its attempts and events.
type RunDetail struct {
	Run      Run       `json:"run" doc:"The Run."`
	Attempts []Attempt `json:"attempts" doc:"The Run's attempts, in order; empty before its first."`
	Events   []Event   `json:"events" doc:"The Run's history, in seq order."`
	// Waiting is present only while the Run is queued and will not start
	// now: on the cluster no worker can take it, on a single-node server
	// that server does not start it yet.
	Waiting *Waiting `json:"waiting,omitempty" doc:"Why the Run, queued, does not start now; absent once it is not queued or will start at once."`
	// RerunAs are the Runs that re-run this one (each with this one as
	// its rerunOf), newest first, at most run.MaxRerunAs; absent when it
	// was never re-run.
	RerunAs []string `json:"rerunAs,omitempty" doc:"The ids of the Runs that re-run this one, newest first, at most 20; absent when it was never re-run."`
	// NoServer is present only for a dispatching or running Run read
	// from a single-node data directory no server serves (its server was
	// killed): nothing watches its command until the next server's
	// recovery ends the attempt lost.
	NoServer *NoServer `json:"noServer,omitempty" doc:"Standalone and edge only, and only in a read of the data directory itself (ql runs show --data-dir), never in this API's answers: the Run was left dispatching or running by a server that is gone."`
}

// NoServer is the stable shape of what a read from a single-node data
// directory no server serves must say: a Run left running by a server
// that is gone (runs show), or overdue triggers nothing decides
// (triggers list).
type NoServer struct {
	// DataDir is the data directory no server serves.
	DataDir string `json:"dataDir" doc:"The data directory no server serves."`
	// Message says what becomes of the Run or the triggers, with the
	// command that serves the directory.
	Message string `json:"message" doc:"In English words, what becomes of the Run or the triggers, with the command that serves the directory." cmdname:"said"`
}

// Waiting is the stable shape of why a queued Run has not started.
type Waiting struct {
	Reason run.WaitReason `json:"reason" doc:"Why the Run waits: no_worker, workers_draining, no_matching_worker, workers_too_old, workers_busy (cluster only); server_busy, server_starting, no_server (standalone and edge only); waits_for_previous, project_busy, project_archived (every profile)." edgedoc:"Why the Run waits: server_busy, server_starting, no_server, waits_for_previous, project_busy or project_archived."`
	// Labels are the labels the task's placement requires ({} for none),
	// and Workers the live workers the reason counts: the cluster's, whose
	// workers run its Runs, always gives both; a single-node server, which
	// has no workers and runs every Run itself, gives neither.
	Labels       map[string]string   `json:"labels,omitzero" doc:"Cluster only: the labels the task's placement requires ({} for none); always given on the cluster, never on a standalone or edge server, which has no workers."`
	Workers      *int                `json:"workers,omitzero" doc:"Cluster only: how many live workers the reason counts; always given on the cluster, never on a standalone or edge server, which has no workers."`
	WorkerLabels []map[string]string `json:"workerLabels,omitempty" doc:"Cluster only: for no_matching_worker, the label sets of the workers that take work, at most 5, those carrying most of the required labels first; absent otherwise."`
	// Reads is, for workers_too_old, the grant field none of the Workers
	// carrying the labels reads (projectEnv).
	Reads string `json:"reads,omitempty" doc:"Cluster only: for workers_too_old, the grant field none of the workers carrying the labels reads (projectEnv); absent otherwise."`
	// PreviousRun is the earlier Run a waits_for_previous Run is held
	// behind.
	PreviousRun string `json:"previousRun,omitempty" doc:"For waits_for_previous, the id of the earlier Run of the trigger this one is held behind; absent otherwise."`
	// Overlap is the overlap policy (queue_one, cancel_previous) that
	// holds a waits_for_previous Run, as its trigger's revision that
	// admitted it says.
	Overlap string `json:"overlap,omitempty" doc:"For waits_for_previous, the trigger's overlap policy that holds the Run: queue_one or cancel_previous; absent otherwise."`
	// Running is how many Runs hold one of a single-node server's slots
	// (server_busy, server_starting), Concurrency how many slots it has
	// (0: not known to the reader, which read the database beside a
	// server that has not recorded it).
	Running     int `json:"running,omitempty" doc:"For server_busy and server_starting (standalone and edge), how many Runs hold one of the server's slots; for project_busy, how many of the project's Runs do; absent otherwise."`
	Concurrency int `json:"concurrency,omitempty" doc:"Standalone and edge only: for server_busy and server_starting, how many slots the server has (its --concurrency); absent otherwise."`
	// Project is, for project_busy and project_archived, the Run's project;
	// MaxRunning, for project_busy, its cap; Running then counts the project's Runs holding a slot.
	Project    string `json:"project,omitempty" doc:"For project_busy and project_archived, the Run's project; absent otherwise."`
	MaxRunning int    `json:"maxRunning,omitempty" doc:"For project_busy, the project's maxRunning, the most of its Runs that hold a slot at once; absent otherwise."`
	// Holders are, for server_busy, the triggers whose Runs hold the
	// server's slots, most first (at most run.MaxSlotHolders), and
	// MoreHolders how many other triggers hold one.
	Holders     []SlotHolder `json:"holders,omitempty" doc:"Standalone and edge only: for server_busy, the triggers whose Runs hold the server's slots, most first, at most 3; absent otherwise."`
	MoreHolders int          `json:"moreHolders,omitempty" doc:"Standalone and edge only: for server_busy, how many triggers besides holders hold a slot; absent when none."`
	// OtherProjectsRuns is, to an API token bound to projects, how many
	// Runs of other projects' triggers hold the slots, never named.
	OtherProjectsRuns int `json:"otherProjectsRuns,omitempty" doc:"Standalone and edge only: to a token bound to projects, how many Runs of other projects' triggers hold the slots, never named; absent when none."`
	// ServerPID and ServerStartedAtMs are, read with --data-dir beside a
	// running server, that server's pid and start, from the record it
	// keeps beside its lock.
	ServerPID         int   `json:"serverPid,omitempty" doc:"Standalone and edge only, and only in a read of the data directory beside a running server (ql runs show --data-dir), never in this API's answers: that server's process id."`
	ServerStartedAtMs int64 `json:"serverStartedAtMs,omitempty" doc:"Standalone and edge only, and only in a read of the data directory beside a running server, never in this API's answers: when that server started, Unix time in milliseconds."`
	// DataDir is the data directory no server serves (no_server);
	// HandedOver, that its database was handed over and waits for a
	// take-back.
	DataDir    string `json:"dataDir,omitempty" doc:"Standalone and edge only: for no_server, which only a read of the data directory itself gives, never this API, the data directory no server serves."`
	HandedOver bool   `json:"handedOver,omitempty" doc:"Standalone and edge only: for no_server, true when the data directory's database was handed over (ql export --with-state), so that its triggers run where that state was applied, and no server starts here before a take-back (ql serve --take-back)."`
	// Message is Reason in English words, with what to do.
	Message string `json:"message" doc:"reason in English words, with what to do." cmdname:"said"`
}

// SlotHolder is a trigger whose Runs hold some of a single-node server's
// slots.
type SlotHolder struct {
	TriggerID string `json:"triggerId" doc:"The id of the trigger whose Runs hold slots."`
	Project   string `json:"project" doc:"The trigger's project's name."`
	Trigger   string `json:"trigger" doc:"The trigger's name."`
	Runs      int    `json:"runs" doc:"How many of the server's slots its Runs hold."`
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
