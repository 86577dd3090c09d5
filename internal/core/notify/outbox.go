package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// State of an outbox row.
type State string

// The states of an outbox row: pending until a delivery succeeds or the
// attempts run out (dead); `ql notifications retry` makes a dead row
// pending again.
const (
	Pending   State = "pending"
	Delivered State = "delivered"
	Dead      State = "dead"
)

// Message is one outbox row. ID is also the idempotency key every
// delivery of the row carries.
type Message struct {
	ID              string
	ProjectID       string
	RunID           string
	RuleKey         string
	Event           Event
	Channel         Channel
	Payload         Payload
	State           State
	Attempts        int
	NextAttemptAtMs int64
	LastError       string
	// LastErrorReason is LastError's reason; "" for a row not failed, or
	// failed by a release that kept no reason.
	LastErrorReason Reason
	CreatedAtMs     int64
	DeliveredAtMs   int64
	// RetriedAtMs is when the row was last retried by hand (0: never), and
	// AttemptsBeforeRetry how many attempts it had then: Attempts keeps
	// counting every delivery, and the limit of attempts counts from the
	// retry.
	RetriedAtMs         int64
	AttemptsBeforeRetry int
	// RetriedBy is who retried it by hand last, as the audit trail names
	// an actor ("" when it never was, or was retried by an older build).
	RetriedBy string
	// Scope is what the rule that wrote the row covers, as the project's
	// settings have that rule now (a listing reads it: the row keeps only
	// the rule's key); nil when they no longer have it, or it was not
	// read.
	Scope *RuleScope
}

// DueNow says a pending row is due from its creation: new, or brought
// forward (a retry by hand, its receiver back, a server's start, a send a
// stop cut short), which makes it due at its creation time so it keeps
// its place in its channel's creation order. Its NextAttemptAtMs then
// lies in the past though it is sent at the deliverer's next round, so
// people are shown "due now" instead.
func (m Message) DueNow() bool {
	return m.State == Pending && m.NextAttemptAtMs <= m.CreatedAtMs
}

// RuleScope is what a rule covers: every task and trigger of Project
// when Tasks and Triggers are both empty, else the Runs and ledger entries
// of the tasks and triggers they name.
type RuleScope struct {
	Project  string
	Tasks    []string
	Triggers []string
}

// Payload is what a notification says; the generic webhook sends it as
// its JSON body, the chat formats render it as text. It holds names,
// states and times — never a command or its environment — and the end of
// the output only for a channel that asks for it.
type Payload struct {
	ID      string `json:"id"`
	Event   Event  `json:"event"`
	Project string `json:"project"`
	Trigger string `json:"trigger,omitempty"`
	// TriggerTitle is the trigger's display title when it has one, which
	// Title shows before the project and trigger names.
	TriggerTitle string `json:"triggerTitle,omitempty"`
	// ProjectTitle and TaskTitle are the project's and the task's display
	// titles when they have one, which the detail lines show before their
	// names.
	ProjectTitle string `json:"projectTitle,omitempty"`
	TaskTitle    string `json:"taskTitle,omitempty"`
	// Server is the server a test message came from, so the one who gets
	// it knows which server tried the channel: its console's address
	// (--console-url) when it has one, else its host name. Only a test
	// message has it.
	Server       string `json:"server,omitempty"`
	RunID        string `json:"runId,omitempty"`
	RunState     string `json:"runState,omitempty"`
	ErrorCode    string `json:"errorCode,omitempty"`
	ScheduledFor string `json:"scheduledFor,omitempty"`
	// StartedAt is when the Run's first attempt started (absent when none
	// did), and DurationMs the time from then to FinishedAt, a pointer so
	// a Run that ended within its first millisecond still says 0.
	StartedAt  string `json:"startedAt,omitempty"`
	FinishedAt string `json:"finishedAt,omitempty"`
	DurationMs *int64 `json:"durationMs,omitempty"`
	// DurationIsLowerBound says DurationMs counts only until the Run's
	// worker was last heard from: it was lost when the worker stopped
	// renewing, and its command may have run on after that.
	DurationIsLowerBound bool `json:"durationIsLowerBound,omitempty"`
	// Origin is what admitted the Run (run.Origin: clock, run_now,
	// backfill, rerun).
	Origin              string `json:"origin,omitempty"`
	ConsecutiveFailures int    `json:"consecutiveFailures,omitempty"`
	// What ran and how it ended: the task's name, the number of the
	// Run's last attempt and its command's exit code (when it exited) or
	// the signal that killed it, by number and name (when one did), and,
	// for a channel that asks for it, the end of its output.
	Task       string `json:"task,omitempty"`
	Attempt    int    `json:"attempt,omitempty"`
	ExitCode   *int   `json:"exitCode,omitempty"`
	Signal     int    `json:"signal,omitempty"`
	SignalName string `json:"signalName,omitempty"`
	Output     string `json:"output,omitempty"`
	// Link is the Run's page in the console, added at each delivery by a
	// server that knows the console's address (--console-url).
	Link string `json:"link,omitempty"`
	// A skipped notification names the ledger entry: its reason, how
	// many occurrences it holds and the last one's time.
	Reason           string `json:"reason,omitempty"`
	Occurrences      int64  `json:"occurrences,omitempty"`
	LastScheduledFor string `json:"lastScheduledFor,omitempty"`
}

// Finished is a Run that has just reached a terminal state, as its
// finishing transaction reads it.
type Finished struct {
	RunID       string
	ProjectID   string
	ProjectName string
	TriggerID   string
	TriggerName string
	// TriggerTitle, ProjectTitle and TaskTitle are the trigger's, the
	// project's and the task's display titles now, "" none.
	TriggerTitle   string
	ProjectTitle   string
	TaskTitle      string
	State          run.State
	ErrorCode      string
	ScheduledForMs int64
	// StartedAtMs is when the Run's first attempt started (0: none did).
	StartedAtMs  int64
	FinishedAtMs int64
	// UntilLastHeard says FinishedAtMs is when the Run's worker was last
	// heard from, not when its command ended: a lower bound of its end.
	UntilLastHeard bool
	// Origin is what admitted the Run ("" when the store does not say).
	Origin run.Origin
	// TaskName, Attempt (the number of the Run's last attempt; 0 when it
	// had none), ExitCode (nil when no command exited) and Signal (the
	// signal that killed the command, 0 when none did: the end event's)
	// say what ran.
	TaskName string
	Attempt  int
	ExitCode *int
	Signal   int
	// Output is the end of the last attempt's log (OutputReadBytes at
	// most; OutputWhole when that is the whole log), read only when the
	// project's settings quote output (Spec.OutputLines).
	Output      []byte
	OutputWhole bool
}

// failure reports whether a finished Run counts as a failure for
// recovered and consecutive_failures. A cancelled Run counts as neither:
// someone stopped it on purpose.
func failure(s run.State) bool { return s == run.Failed || s == run.TimedOut || s == run.Lost }

// Counted are the finished Run states the history reads: cancelled Runs
// are passed over.
var Counted = []run.State{run.Succeeded, run.Failed, run.TimedOut, run.Lost}

// History is how many of the trigger's previous finished Runs (newest
// first, cancelled ones left out) Derive needs: 0 when no rule looks back,
// so a store reads nothing more for the common rules.
func (s Spec) History() int {
	n := 0
	for _, r := range s.Rules {
		switch {
		case r.On == OnRecovered && n < 1:
			n = 1
		case r.On == OnConsecutiveFailures && r.Count > n:
			n = r.Count
		}
	}
	return n
}

// Derive returns the outbox rows the finished Run f produces under s.
// previous are the states of the trigger's finished Runs before f, newest
// first, at least s.History() of them when there are that many.
//
//   - succeeded, failed, timed_out, lost: f ended so.
//   - finished: f ended any of those ways (a cancelled Run was stopped by
//     someone, who needs no telling).
//   - recovered: f succeeded and the Run before it failed.
//   - consecutive_failures N: f failed and is the N-th failure in a row —
//     one notification per streak, not one per failure after the N-th.
//
// A scoped rule is told only of the Runs of its tasks and triggers.
func (s Spec) Derive(f Finished, previous []run.State, newID func() string) []Message {
	streak := 0
	if failure(f.State) {
		streak = 1
		for _, p := range previous {
			if !failure(p) {
				break
			}
			streak++
		}
	}
	var out []Message
	for _, r := range s.Rules {
		if !r.Covers(f.TaskName, f.TriggerName) {
			continue
		}
		fire := false
		switch r.On {
		case OnSucceeded, OnFailed, OnTimedOut, OnLost:
			fire = string(r.On) == string(f.State)
		case OnFinished:
			fire = contains(Counted, f.State)
		case OnRecovered:
			fire = f.State == run.Succeeded && len(previous) > 0 && failure(previous[0])
		case OnConsecutiveFailures:
			fire = streak == r.Count
		}
		if !fire {
			continue
		}
		ch, ok := s.Channel(r.Channel)
		if !ok {
			continue
		}
		id := newID()
		p := Payload{ID: id, Event: r.On, Project: f.ProjectName, Trigger: f.TriggerName, TriggerTitle: f.TriggerTitle, ProjectTitle: f.ProjectTitle, TaskTitle: f.TaskTitle, RunID: f.RunID, RunState: string(f.State),
			ErrorCode: f.ErrorCode, ScheduledFor: stamp(f.ScheduledForMs), StartedAt: stamp(f.StartedAtMs), FinishedAt: stamp(f.FinishedAtMs),
			DurationMs: duration(f.StartedAtMs, f.FinishedAtMs), DurationIsLowerBound: f.UntilLastHeard, Origin: string(f.Origin),
			Task: f.TaskName, Attempt: f.Attempt, ExitCode: f.ExitCode, Output: OutputTail(f.Output, f.OutputWhole, ch.Output)}
		if f.Signal != 0 {
			p.Signal, p.SignalName = f.Signal, run.SignalName(f.Signal)
		}
		if r.On == OnConsecutiveFailures {
			p.ConsecutiveFailures = streak
		}
		out = append(out, Message{ID: id, ProjectID: f.ProjectID, RunID: f.RunID, RuleKey: r.Key(), Event: r.On, Channel: ch, Payload: p,
			State: Pending})
	}
	return out
}

// StampLayout is the payloads' time format, RFC 3339 in UTC with
// milliseconds; PostgreSQL's statements write the same.
const StampLayout = "2006-01-02T15:04:05.000Z"

func stamp(ms int64) string {
	if ms == 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format(StampLayout)
}

// duration is the time from started to finished, in milliseconds; nil
// when either is unknown. A clock stepped back between the two reads as 0,
// never as a negative time.
func duration(started, finished int64) *int64 {
	if started == 0 || finished == 0 {
		return nil
	}
	d := max(finished-started, 0)
	return &d
}

// Skipped is one occurrence-ledger entry just written: occurrences of a
// trigger passed over without a Run.
type Skipped struct {
	ProjectID, ProjectName string
	TriggerID, TriggerName string
	// TriggerTitle, ProjectTitle and TaskTitle are the trigger's, the
	// project's and the task's display titles now, "" none, as a Run's
	// notification carries them.
	TriggerTitle string
	ProjectTitle string
	TaskTitle    string
	// TaskName is the task of the trigger's revision, for the rules
	// scoped to tasks.
	TaskName string
	// Seq numbers the entry within its trigger; with the trigger it is
	// the entry's identity, the subject of its notifications.
	Seq          int64
	Reason       string
	FirstMs      int64
	LastMs       int64
	Occurrences  int64
	RecordedAtMs int64
}

// SkipSubject is the deduplication subject of a ledger entry's
// notifications.
func SkipSubject(triggerID string, seq int64) string {
	return fmt.Sprintf("skip:%s:%d", triggerID, seq)
}

// DeriveSkipped returns the outbox rows a ledger entry produces: one per
// skipped rule whose reasons (none: every reason) include the entry's and
// whose scope (none: the whole project) covers the entry's trigger.
func (s Spec) DeriveSkipped(k Skipped, newID func() string) []Message {
	var out []Message
	for _, r := range s.Rules {
		if r.On != OnSkipped || (len(r.Reasons) > 0 && !contains(r.Reasons, k.Reason)) || !r.Covers(k.TaskName, k.TriggerName) {
			continue
		}
		ch, ok := s.Channel(r.Channel)
		if !ok {
			continue
		}
		id := newID()
		p := Payload{ID: id, Event: OnSkipped, Project: k.ProjectName, Trigger: k.TriggerName, Task: k.TaskName, TriggerTitle: k.TriggerTitle, ProjectTitle: k.ProjectTitle, TaskTitle: k.TaskTitle, Reason: k.Reason, Occurrences: k.Occurrences,
			ScheduledFor: stamp(k.FirstMs), LastScheduledFor: stamp(k.LastMs)}
		out = append(out, Message{ID: id, ProjectID: k.ProjectID, RuleKey: r.Key(), Event: OnSkipped, Channel: ch, Payload: p, State: Pending})
	}
	return out
}

// EncodeJSON is the stored form of a channel or payload.
func EncodeJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("notify: encode: " + err.Error())
	}
	return string(b)
}

// DecodeMessage fills m's channel and payload from their stored forms.
func DecodeMessage(m *Message, channel, payload string) error {
	if err := json.Unmarshal([]byte(channel), &m.Channel); err != nil {
		return err
	}
	return json.Unmarshal([]byte(payload), &m.Payload)
}

// Claim asks an Outbox for rows to send.
type Claim struct {
	Limit int
	Lease time.Duration
	// PerChannel caps the rows of one channel under way in this process:
	// a row is taken only while its channel has fewer, counting InFlight
	// and the rows the claim takes before it.
	PerChannel int
	// InFlight is how many rows of each channel this process is sending.
	InFlight map[ChannelRef]int
}

// ChannelRef names a channel: channels are named within their project.
type ChannelRef struct {
	ProjectID string
	Channel   string
}

// RefOf is the channel m is sent to.
func RefOf(m Message) ChannelRef {
	return ChannelRef{ProjectID: m.ProjectID, Channel: m.Channel.Name}
}

// Outbox is the store side of delivery. Times are the store's clock.
type Outbox interface {
	// NotificationsClaim takes up to c.Limit pending rows due now, in due
	// order, within each channel's share: each gets attempts + 1 and is not
	// due again for c.Lease, so replicas sharing the outbox never send one
	// row at once. Each channel's own first due rows are candidates, however
	// many rows of other channels fall due before them: a backlog of one
	// channel never hides another channel's rows from a claim with free
	// slots.
	NotificationsClaim(ctx context.Context, c Claim) ([]Message, error)
	// NotificationDelivered marks the row delivered.
	NotificationDelivered(ctx context.Context, id string) error
	// NotificationFailed records a failed delivery of the claim with the
	// given attempt count, its reason and text: the row is due again
	// after retryIn, or dead.
	NotificationFailed(ctx context.Context, id string, attempts int, retryIn time.Duration, dead bool, f Failure) error
	// Manager lists rows for people and retries dead ones.
	Manager
}
