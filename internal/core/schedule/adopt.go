package schedule

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// A trigger moved from one database to another (standalone to the
// cluster, `ql export --with-state` then `ql apply --adopt-state`) is a new
// trigger in the target, whose schedule would start at its publish: every
// occurrence between the source's last admission and that publish would
// either run twice (a fire_once catch-up of one the source ran) or never
// (skipped with no record). Adopting the source's cursor, its next
// occurrence not yet admitted, continues the one schedule: the target
// admits that occurrence, or passes it over, by its misfire policy as
// after any outage.

// AdoptRequest starts TriggerID's schedule at CursorMs, its next
// occurrence not yet admitted where it ran before, falling due at
// CursorMs + DueOffsetMs (its jitter; AdoptedCursor gives both).
type AdoptRequest struct {
	TriggerID   string
	CursorMs    int64
	DueOffsetMs int64
}

// Adopter starts schedules at a position handed over from another
// database. ScheduleAdopt writes the row's cursor and bumps its version
// (and, where takes claim rows, gives back a claim) in one transaction, so
// no ticket taken before commits against the adopted cursor; it refuses
// (FailedPrecondition, RefusalAdoptOverScheduled) a row that has admitted
// or passed over an occurrence in this database, whose schedule runs here
// already: moving its cursor would repeat or skip occurrences. An unknown
// trigger is NotFound (RefusalTriggerMissing).
// The same position adopted again changes nothing (AdoptedAlready),
// whether or not the schedule ran since.
type Adopter interface {
	ScheduleAdopt(ctx context.Context, r AdoptRequest) (AdoptResult, error)
}

// AdoptResult is what an adoption did.
type AdoptResult int

const (
	// Adopted is a schedule that starts at the position now.
	Adopted AdoptResult = iota + 1
	// AdoptedAlready is a trigger adopted at this very position
	// before; its schedule starts there, or has run on from there.
	AdoptedAlready
)

// AdoptDecision is what an adoption of cursorMs does to a schedule row
// that decided occurrences here (scheduled) or not, holding the position
// adopted before (adoptedMs, nil when never) and the cursor nextMs: the
// same position again is AdoptedAlready (nothing to write), a row that
// ran here from anything else is refused, any other row is written.
func AdoptDecision(triggerID string, scheduled bool, adoptedMs, nextMs *int64, cursorMs int64) (AdoptResult, error) {
	same := adoptedMs != nil && *adoptedMs == cursorMs
	switch {
	case same && (scheduled || (nextMs != nil && *nextMs == cursorMs)):
		return AdoptedAlready, nil
	case scheduled:
		return 0, AdoptOverScheduled(triggerID)
	}
	return Adopted, nil
}

// RefusalAdoptOverScheduled is an adoption refused because the trigger's
// schedule already decided occurrences in the target database.
const RefusalAdoptOverScheduled qlerror.Reason = "adopt_over_scheduled"

// AdoptOverScheduled is the refusal of adopting a position for the
// trigger triggerID, whose schedule already ran here.
func AdoptOverScheduled(triggerID string) error {
	return qlerror.New(qlerror.FailedPrecondition,
		"trigger %s has already admitted or passed over occurrences in this database, so its schedule runs here: adopting the handed-over position "+
			"would repeat or skip occurrences, and nothing of it was changed; adopt state only into triggers that have not run yet "+
			"(apply before any replica or server starts on this database), or apply this project without --adopt-state", triggerID).
		Because(RefusalAdoptOverScheduled, "triggerId", triggerID)
}

// AdoptedCursor is where the trigger of c (triggerID) starts when handed
// the position handedMs: its first occurrence at or after it (not before
// its startAt), so an edited cron still starts on one of its own
// occurrences, with that occurrence's jitter. ok is false when no
// occurrence is left within the trigger's bounds: its schedule then ends
// on its own at its first decision.
func AdoptedCursor(triggerID string, c trigger.Cron, handedMs int64) (cursor, dueOffset int64, ok bool, err error) {
	s, err := cron.Parse(c.Expression, c.Timezone)
	if err != nil {
		return 0, 0, false, err
	}
	next, found := s.Next(max(handedMs, c.StartAtMs) - 1)
	if !found || (c.EndAtMs != 0 && next > c.EndAtMs) {
		return 0, 0, false, nil
	}
	return next, JitterOffset(triggerID, next, c.JitterMs), true, nil
}
