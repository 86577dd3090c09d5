package run

import (
	"strconv"
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Event names. Payloads are small JSON objects without secrets or logs.
const (
	EventCreated        = "run.created"
	EventQueued         = "run.queued"
	EventRunning        = "run.running"
	EventSucceeded      = "run.succeeded"
	EventFailed         = "run.failed"
	EventTimedOut       = "run.timed_out"
	EventCancelled      = "run.cancelled"
	EventLost           = "run.lost"
	EventAttemptStarted = "attempt.started"
	// Cluster execution: a worker was granted the Run's attempt; the Run
	// waits out its retry backoff; a cancel was asked of a running Run.
	EventDispatching     = "run.dispatching"
	EventRetryWait       = "run.retry_wait"
	EventCancelRequested = "run.cancel_requested"
	// EventWaiting (cluster): a queued Run no live worker could take,
	// because none carries its task's placement labels or none takes work;
	// its payload is WaitingNote. A Run gets it at most once.
	EventWaiting = "run.waiting"
)

// Run is one admitted occurrence of a trigger.
type Run struct {
	ID              string
	ProjectID       string
	TaskID          string
	TaskRevision    int64
	TriggerID       string
	TriggerRevision int64
	// ProjectName is the project's current name; TriggerName the trigger's
	// name at TriggerRevision (what it was called when it fired) and
	// TaskName the task's at TaskRevision (what ran). Readers fill them for
	// people; nothing decides on them.
	ProjectName string
	TriggerName string
	TaskName    string
	// TriggerTitle is the trigger's display title now ("" none): a title
	// is the trigger's own, not a revision's, so a Run shows the current
	// one beside the name it fired under.
	TriggerTitle        string
	ExecutionRevisionID string
	IdempotencyKey      string
	ScheduledForMs      int64
	// DueAtMs is the jittered instant the Run was admitted for (its
	// trigger's jitter added to ScheduledForMs); 0 for a Run admitted
	// before the stores recorded it, whose due time is ScheduledForMs.
	DueAtMs      int64
	State        State
	Version      int64
	LastEventSeq int64
	CreatedAtMs  int64
	QueuedAtMs   int64
	UpdatedAtMs  int64
	FinishedAtMs *int64
	// RanMs is, once the Run has finished, how long its attempts ran,
	// added up, each from its start to its end: no queue and no wait
	// between retries (nil before it finishes). Readers fill it with the
	// Run, so a listing says it without reading each Run's attempts.
	RanMs *int64
	// RanUntilLastHeard says RanMs is a lower bound: the Run was lost
	// when its worker stopped renewing, and its last attempt is stamped
	// ended when the worker was last heard from for it; the command may
	// have run on after that.
	RanUntilLastHeard bool
	// RerunOf is the finished Run this one repeats, "" for a Run the clock
	// or a run-now request admitted.
	RerunOf string
	// Origin is what admitted the Run: its trigger's clock, or a person's
	// request.
	Origin Origin
	// ErrorCode is how a Run that failed, timed out or was lost ended:
	// its last attempt's error code (exit_nonzero, killed_by_signal,
	// timed_out, server_stopped, worker_stopped, …), read with the Run so
	// a listing says it without reading each Run again; "" for a Run in
	// any other state. ExitCode is that attempt's exit code, when its
	// command exited on its own.
	ErrorCode string
	ExitCode  *int64
	// WorkerName is the cluster worker that holds or held the Run's
	// latest attempt, "" on a profile without workers or before a worker
	// took it.
	WorkerName string
}

// Origin is what admitted a Run. A request's Run records which request it
// was under the key "manual" of its run.created event (the audit of the
// request, beside who asked); a Run the clock admitted has no such key.
// The readers give it from there, so it holds for every Run ever admitted.
type Origin string

// The origins of a Run. The requests' are the values of run.created's
// "manual" key.
const (
	OriginClock    Origin = "clock"
	OriginRunNow   Origin = "run_now"
	OriginRerun    Origin = "rerun"
	OriginBackfill Origin = "backfill"
)

// OriginOf is the origin of a Run whose run.created event records the
// request manual ("" when it records none: the clock admitted it).
func OriginOf(manual string) Origin {
	if manual == "" {
		return OriginClock
	}
	return Origin(manual)
}

// Attempt is one try at executing a Run.
type Attempt struct {
	ID    string
	RunID string
	// PID is a local_process attempt's command process, also its process
	// group id, once running; 0 otherwise. Only recovery reads it.
	PID       int
	Number    int64
	Executor  string
	State     AttemptState
	ExitCode  *int64
	ErrorCode string
	// ErrorMessage says in words why the attempt ended as it did, when
	// the executor gave a reason (a spawn failure, a lost lease, the
	// signal that killed the command).
	ErrorMessage string
	// Signal is the signal that killed the command when QingLong did not
	// send it, 0 otherwise. It is part of a result, recorded in the
	// message and the Run's end event (EndPayload); readers leave it 0.
	Signal int
	// WorkerName is the cluster worker that held the attempt, "" for a
	// local_process attempt or one no worker has taken yet.
	WorkerName   string
	CreatedAtMs  int64
	StartedAtMs  *int64
	FinishedAtMs *int64
	LogPath      string
	LogBytes     int64
	LogTruncated bool
	// LogRemoved: log retention removed the attempt's log (it had one:
	// the attempt started); LogBytes still says how much it held.
	LogRemoved bool
}

// EndPayload adds to the payload of the event ending a's Run (or sending
// it to wait for a retry) how a ended: its exit code, error code and the
// signal that killed it, by number and name. Both profiles write these
// keys, so a reader of the events finds them whichever executor ran a.
func EndPayload(p map[string]any, a Attempt) {
	if a.ExitCode != nil {
		p["exitCode"] = *a.ExitCode
	}
	if a.ErrorCode != "" {
		p["errorCode"] = a.ErrorCode
	}
	if a.Signal != 0 {
		p["signal"] = a.Signal
		p["signalName"] = SignalName(a.Signal)
	}
}

// Event is one entry of a Run's append-only history.
type Event struct {
	RunID       string
	Seq         int64
	Name        string
	Payload     string
	CreatedAtMs int64
}

// Detail is a Run with its attempts and events.
type Detail struct {
	Run      Run
	Attempts []Attempt
	Events   []Event
	// Waiting says why the Run has not started, when it is queued and
	// will not start now (Waiting); nil otherwise.
	Waiting *Waiting
	// RerunAs are the Runs that re-run this one (their RerunOf is its
	// id), newest first, at most MaxRerunAs: without them a Run that was
	// lost or failed does not say it was already re-run.
	RerunAs []string
}

// MaxRerunAs bounds Detail.RerunAs, so a Run's page stays one bounded
// read however often it was re-run: past it, the newest are named.
const MaxRerunAs = 20

// The reasons of Detail.Attempt's refusals: the console says each in the
// page's language.
const (
	RefusalNoAttemptYet  qlerror.Reason = "run_no_attempt_yet"
	RefusalNoSuchAttempt qlerror.Reason = "run_no_such_attempt"
)

// Attempt is the Run's attempt numbered n, as `ql runs show` lists them,
// or its latest attempt when n is 0. An n the Run does not have is
// NotFound, naming the numbers it has, so the caller can pick one.
func (d Detail) Attempt(n int64) (Attempt, error) {
	if len(d.Attempts) == 0 {
		return Attempt{}, qlerror.New(qlerror.NotFound, "run %s has no attempt yet", d.Run.ID).Because(RefusalNoAttemptYet)
	}
	if n == 0 {
		return d.Attempts[len(d.Attempts)-1], nil
	}
	have := make([]string, 0, len(d.Attempts))
	for _, a := range d.Attempts {
		if a.Number == n {
			return a, nil
		}
		have = append(have, strconv.FormatInt(a.Number, 10))
	}
	return Attempt{}, qlerror.New(qlerror.NotFound, "run %s has no attempt %d; its attempts are %s", d.Run.ID, n, strings.Join(have, ", ")).
		Because(RefusalNoSuchAttempt, "attempt", n, "attempts", strings.Join(have, ", "))
}
