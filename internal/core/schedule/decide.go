package schedule

import (
	"slices"
	"strconv"

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
	// TriggerID and the trigger's time policies (trigger.Cron): jitter is
	// derived from the trigger id and each nominal occurrence (jitter.go).
	TriggerID        string
	JitterMs         int64
	StartAtMs        int64
	EndAtMs          int64
	CatchUpWindowMs  int64
	HasCatchUpWindow bool
}

// Decision is the decider's output.
type Decision struct {
	Action Action
	DueMs  int64 // the occurrence the decision is about: the row's cursor
	// ScheduledForMs (Admit only) is the nominal occurrence admitted: DueMs,
	// or a later one when a catch-up window passed DueMs (catchup.go).
	ScheduledForMs int64
	// FireAtMs (Admit only) is ScheduledForMs's jittered due time, which
	// the Run records; equal to ScheduledForMs without jitter.
	FireAtMs     int64
	NextFireAtMs int64 // the new cursor, nominal; always > DueMs except on Initialize
	// NextDueAtMs is NextFireAtMs's jittered due time: the instant the
	// row is claimed at. Zero when Ended.
	NextDueAtMs int64
	// Ended: the trigger's endAt lies before its next occurrence; the row
	// keeps NextFireAtMs (EndAtMs+1) as its cursor with no due time, and
	// is never claimed again (bounds.go).
	Ended bool
	// Passed are the nominal occurrences this decision moves the cursor
	// past without a Run, for the occurrence ledger (passed.go).
	Passed []Passed
}

// Equal reports whether d and o are the same decision, passed occurrences
// included.
func (d Decision) Equal(o Decision) bool {
	return d.Action == o.Action && d.DueMs == o.DueMs && d.ScheduledForMs == o.ScheduledForMs &&
		d.FireAtMs == o.FireAtMs && d.NextFireAtMs == o.NextFireAtMs && d.NextDueAtMs == o.NextDueAtMs &&
		d.Ended == o.Ended && slices.Equal(d.Passed, o.Passed)
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
	if err := checkPolicies(in); err != nil {
		return Decision{}, err
	}
	var due int64
	if in.CursorMs == nil {
		// Anchor at creation − 1 ms so an occurrence exactly at the
		// revision's creation instant still counts; occurrences before
		// startAt do not exist for the trigger.
		anchor := max(in.RevisionCreatedAtMs, in.StartAtMs) - 1
		first, ok := in.Schedule.Next(anchor)
		if !ok {
			if in.EndAtMs != 0 {
				return endedAtInit(in), nil
			}
			return Decision{}, errNoOccurrence(in.Schedule, anchor)
		}
		due = first
	} else {
		due = *in.CursorMs
	}
	if afterEnd(in, due) {
		return endedAtInit(in), nil
	}
	dueAt := fireAt(in, due)
	if dueAt > in.NowMs {
		return Decision{Action: Initialize, DueMs: due, NextFireAtMs: due, NextDueAtMs: dueAt}, nil
	}
	next, ok := in.Schedule.Next(in.NowMs)
	if !ok && in.EndAtMs == 0 {
		return Decision{}, errNoOccurrence(in.Schedule, in.NowMs)
	}
	if in.Policy != trigger.Skip && in.Policy != trigger.FireOnce {
		return Decision{}, qlerror.New(qlerror.Invalid, "schedule: misfire policy %q is not one of skip, fire_once", in.Policy)
	}
	// Admit the oldest due occurrence exactly once and jump the cursor
	// past now — the backlog is never replayed, and every later
	// occurrence up to now collapses into this Run — unless the policy's
	// window (skip: the grace; fire_once: the catch-up window, if any)
	// passes it over for the oldest one inside the window.
	d := Decision{Action: Admit, DueMs: due, ScheduledForMs: due, FireAtMs: dueAt, NextFireAtMs: next}
	switch {
	case in.Policy == trigger.Skip:
		d = narrowToWindow(in, d, in.GraceMs, PassMisfire)
	case in.HasCatchUpWindow:
		d = narrowToWindow(in, d, in.CatchUpWindowMs, PassCatchUpWindow)
	}
	if d.Action == Admit {
		d.Passed = append(d.Passed, passOver(in, PassCollapsed, d.ScheduledForMs+1, lastPassable(in))...)
	}
	// The new cursor is an occurrence unless the cron had none after now
	// and the catch-up window did not move the cursor to one of its own.
	return applyEnd(in, d, ok || d.NextFireAtMs != next), nil
}

// lastPassable is the last instant whose occurrences a decision now may
// pass over for a misfire or a collapse: now, or endAt when that is
// earlier (later ones are outside the bounds, passed as such by applyEnd).
func lastPassable(in Input) int64 {
	if in.EndAtMs != 0 {
		return min(in.NowMs, in.EndAtMs)
	}
	return in.NowMs
}

func errNoOccurrence(s *cron.Schedule, afterMs int64) error {
	return qlerror.New(qlerror.FailedPrecondition, "schedule: %q (%s) has no occurrence after %d", s.Expression(), s.Location(), afterMs)
}

// IdempotencyKey is the deterministic identity of an admitted occurrence; a
// unique index on it makes any replay of the same admission harmless.
func IdempotencyKey(triggerID string, triggerRevision, scheduledForMs int64) string {
	// Built rather than formatted: one allocation (the string; the buffer
	// stays on the stack), where Sprintf boxes each argument; every
	// admission computes it.
	var buf [96]byte
	return string(AppendIdempotencyKey(buf[:0], triggerID, triggerRevision, scheduledForMs))
}

// AppendIdempotencyKey appends IdempotencyKey's text to dst, so a page can
// lay the keys of all its admissions out in one buffer.
func AppendIdempotencyKey(dst []byte, triggerID string, triggerRevision, scheduledForMs int64) []byte {
	dst = append(dst, "ql3:cron:v1:"...)
	dst = append(dst, triggerID...)
	dst = append(dst, ':')
	dst = strconv.AppendInt(dst, triggerRevision, 10)
	dst = append(dst, ':')
	return strconv.AppendInt(dst, scheduledForMs, 10)
}
