// Package run is the Run, Attempt and Event model: the durable record of one
// admitted occurrence, its execution attempts and its append-only history.
//
// Run states (terminal in brackets; lost must be reconciled):
//
//	created ─► queued ─► dispatching ─► running ─► [succeeded|failed|timed_out]
//	              │  ▲         │            │
//	              │  └─────────┘            ├─► retry_wait ─► queued
//	              │                         └─► waiting_approval ─► queued
//	              └─► running (local executor starts directly)
//	any non-terminal ─► [cancelled] ; queued/dispatching/running ─► lost ─► queued|failed|cancelled
//
// Every state change bumps Run.Version and appends an Event in the same
// transaction; transitions are checked against the tables below.
package run

import (
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// State of a Run.
type State string

// The states of a Run; CheckTransition says which moves between them are allowed.
const (
	Created         State = "created"
	Queued          State = "queued"
	Dispatching     State = "dispatching"
	Running         State = "running"
	WaitingApproval State = "waiting_approval"
	RetryWait       State = "retry_wait"
	Succeeded       State = "succeeded"
	Failed          State = "failed"
	Cancelled       State = "cancelled"
	TimedOut        State = "timed_out"
	Lost            State = "lost"
)

// States lists every run state, for validation and schema checks.
var States = []State{Created, Queued, Dispatching, Running, WaitingApproval, RetryWait, Succeeded, Failed, Cancelled, TimedOut, Lost}

// Reachable lists the states a Run of this release can be in, for the
// choices a user filters by: every state but WaitingApproval, which the
// schema and the transitions keep for approvals and no path enters yet.
var Reachable = []State{Created, Queued, Dispatching, Running, RetryWait, Succeeded, Failed, Cancelled, TimedOut, Lost}

var runTransitions = map[State][]State{
	Created:         {Queued, Cancelled},
	Queued:          {Dispatching, Running, Cancelled, Lost},
	Dispatching:     {Running, Queued, Cancelled, Lost},
	Running:         {Succeeded, Failed, TimedOut, Cancelled, Lost, RetryWait, WaitingApproval},
	WaitingApproval: {Queued, Cancelled},
	RetryWait:       {Queued, Cancelled},
	Lost:            {Queued, Failed, Cancelled},
}

// Terminal reports whether no transition leaves s.
func (s State) Terminal() bool {
	switch s {
	case Succeeded, Failed, Cancelled, TimedOut:
		return true
	}
	return false
}

// CheckTransition returns an error unless from → to is allowed.
func CheckTransition(from, to State) error {
	return checkIn(runTransitions, "run", from, to)
}

// AttemptState of an Attempt.
type AttemptState string

// The states of an Attempt; CheckAttemptTransition says which moves between them are allowed.
const (
	AttemptClaimed   AttemptState = "claimed"
	AttemptStarting  AttemptState = "starting"
	AttemptRunning   AttemptState = "running"
	AttemptSucceeded AttemptState = "succeeded"
	AttemptFailed    AttemptState = "failed"
	AttemptTimedOut  AttemptState = "timed_out"
	AttemptCancelled AttemptState = "cancelled"
	AttemptLost      AttemptState = "lost"
)

// ErrorCodeCancelled is the error code of an attempt ended cancelled
// because a cancel was asked of its Run, on every profile: also when the
// command then ended on its own before its runner heard the cancel (the
// intent wins).
const ErrorCodeCancelled = "cancelled"

// AttemptStates lists every attempt state.
var AttemptStates = []AttemptState{AttemptClaimed, AttemptStarting, AttemptRunning, AttemptSucceeded, AttemptFailed, AttemptTimedOut, AttemptCancelled, AttemptLost}

var attemptTransitions = map[AttemptState][]AttemptState{
	AttemptClaimed:  {AttemptStarting, AttemptCancelled, AttemptLost},
	AttemptStarting: {AttemptRunning, AttemptFailed, AttemptTimedOut, AttemptCancelled, AttemptLost},
	AttemptRunning:  {AttemptSucceeded, AttemptFailed, AttemptTimedOut, AttemptCancelled, AttemptLost},
}

// Terminal reports whether the attempt is finished. A late callback for a
// terminal attempt is rejected, never applied.
func (s AttemptState) Terminal() bool {
	_, open := attemptTransitions[s]
	return !open
}

// The reasons of a change refused by a Run's state: it or its attempt has
// already ended (a cancel that raced the end), or it has no attempt yet to
// stop (a cancel between two of its steps).
const (
	RefusalAlreadyEnded  qlerror.Reason = "already_ended"
	RefusalNothingToStop qlerror.Reason = "nothing_to_stop"
)

// CheckAttemptTransition returns an error unless from → to is allowed.
func CheckAttemptTransition(from, to AttemptState) error {
	return checkIn(attemptTransitions, "attempt", from, to)
}

func checkIn[S ~string](table map[S][]S, what string, from, to S) error {
	next, ok := table[from]
	if !ok {
		if !known(table, from) {
			return qlerror.New(qlerror.Invalid, "%s state %q is unknown", what, from)
		}
		return qlerror.New(qlerror.FailedPrecondition, "%s is already %s (terminal); %s is not applied", what, from, to).Because(RefusalAlreadyEnded)
	}
	for _, n := range next {
		if n == to {
			return nil
		}
	}
	return qlerror.New(qlerror.FailedPrecondition, "%s cannot go from %s to %s", what, from, to)
}

func known[S ~string](table map[S][]S, s S) bool {
	if _, ok := table[s]; ok {
		return true
	}
	for _, next := range table {
		for _, n := range next {
			if n == s {
				return true
			}
		}
	}
	return false
}
