package schedule

import (
	"fmt"
	"slices"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// Action is what a decision does with one schedule row.
type Action string

const (
	// Initialize stores the first due occurrence as the cursor; no Run.
	Initialize Action = "initialize"
	// SkipLate advances the cursor past now without a Run (misfire skip).
	SkipLate Action = "skip"
	// Admit creates exactly one Run for ScheduledForMs and advances the cursor.
	Admit Action = "admit"
)

// Input is everything a decision may depend on. There is no clock: NowMs is
// the observation time the caller took from its authority (PostgreSQL's
// clock for the cluster, the injected clock for single-node profiles).
type Input struct {
	Schedule            *cron.Schedule
	CursorMs            *int64 // nil: the row must be initialised
	RevisionCreatedAtMs int64
	NowMs               int64
	Policy              trigger.MisfirePolicy
	GraceMs             int64
	// Pause is the row's last pause that a decision may still pass over
	// (pause.go); nil when there is none.
	Pause *PauseSpan
}

// Decision is the decider's output.
type Decision struct {
	Action         Action
	DueMs          int64 // the occurrence the decision is about
	ScheduledForMs int64 // Admit only: equals DueMs
	NextFireAtMs   int64 // the new cursor; always > DueMs
	// Passed are the nominal occurrences this decision moves the cursor
	// past without a Run, for the occurrence ledger (passed.go).
	Passed []Passed
}

// Equal reports whether d and o are the same decision, passed occurrences
// included.
func (d Decision) Equal(o Decision) bool {
	return d.Action == o.Action && d.DueMs == o.DueMs && d.ScheduledForMs == o.ScheduledForMs &&
		d.NextFireAtMs == o.NextFireAtMs && slices.Equal(d.Passed, o.Passed)
}

// Decide is the profile-neutral cron/misfire decision (docs/architecture.md, "Cron time and daylight saving"). It is pure:
// the same input always yields the same decision.
func Decide(in Input) (Decision, error) {
	if in.Schedule == nil {
		return Decision{}, qlerror.New(qlerror.Internal, "schedule: decision without a parsed cron schedule")
	}
	if in.GraceMs < 0 {
		return Decision{}, qlerror.New(qlerror.Invalid, "schedule: grace %dms must not be negative", in.GraceMs)
	}
	var due int64
	if in.CursorMs == nil {
		// Anchor at creation − 1 ms so an occurrence exactly at the
		// revision's creation instant still counts.
		first, ok := in.Schedule.Next(in.RevisionCreatedAtMs - 1)
		if !ok {
			return Decision{}, errNoOccurrence(in.Schedule, in.RevisionCreatedAtMs-1)
		}
		due = first
	} else {
		due = *in.CursorMs
	}
	if due > in.NowMs {
		return Decision{Action: Initialize, DueMs: due, NextFireAtMs: due}, nil
	}
	next, ok := in.Schedule.Next(in.NowMs)
	if !ok {
		return Decision{}, errNoOccurrence(in.Schedule, in.NowMs)
	}
	if in.NowMs-due > in.GraceMs && in.Policy == trigger.Skip {
		return Decision{Action: SkipLate, DueMs: due, NextFireAtMs: next, Passed: passOver(in, PassMisfire, due, in.NowMs)}, nil
	}
	if in.Policy != trigger.Skip && in.Policy != trigger.FireOnce {
		return Decision{}, qlerror.New(qlerror.Invalid, "schedule: misfire policy %q is not one of skip, fire_once", in.Policy)
	}
	// fire_once (or on time): admit the oldest due occurrence exactly once and
	// jump the cursor past now — the backlog is never replayed, and every
	// later occurrence up to now collapses into this Run.
	return Decision{Action: Admit, DueMs: due, ScheduledForMs: due, NextFireAtMs: next, Passed: passOver(in, PassCollapsed, due+1, in.NowMs)}, nil
}

func errNoOccurrence(s *cron.Schedule, afterMs int64) error {
	return qlerror.New(qlerror.FailedPrecondition, "schedule: %q (%s) has no occurrence after %d", s.Expression(), s.Location(), afterMs)
}

// IdempotencyKey is the deterministic identity of an admitted occurrence; a
// unique index on it makes any replay of the same admission harmless.
func IdempotencyKey(triggerID string, triggerRevision, scheduledForMs int64) string {
	return fmt.Sprintf("ql3:cron:v1:%s:%d:%d", triggerID, triggerRevision, scheduledForMs)
}
