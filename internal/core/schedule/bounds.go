package schedule

import (
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// checkPolicies refuses time policies no published revision can carry.
func checkPolicies(in Input) error {
	switch {
	case in.JitterMs < 0 || in.JitterMs > trigger.MaxJitterMs:
		return qlerror.New(qlerror.Invalid, "schedule: jitter %dms is outside 0 … %dms", in.JitterMs, trigger.MaxJitterMs)
	case in.HasCatchUpWindow && in.CatchUpWindowMs < 0:
		return qlerror.New(qlerror.Invalid, "schedule: catch-up window %dms must not be negative", in.CatchUpWindowMs)
	case in.EndAtMs != 0 && in.EndAtMs <= in.StartAtMs:
		return qlerror.New(qlerror.Invalid, "schedule: endAt %d is not after startAt %d", in.EndAtMs, in.StartAtMs)
	}
	return nil
}

// afterEnd reports whether a nominal occurrence lies beyond the trigger's
// endAt.
func afterEnd(in Input, ms int64) bool { return in.EndAtMs != 0 && ms > in.EndAtMs }

// EndedCursor is the cursor of a row whose trigger has no occurrence left
// within its bounds: just past endAt, whatever the cron.
func EndedCursor(endAtMs int64) int64 { return endAtMs + 1 }

// endedAtInit is the decision for a row whose first (or current) cursor
// already lies beyond endAt: it ends without a Run. A row initialised after
// its endAt passes the occurrences that fell due since its revision was
// created; a row already ended passes nothing again.
func endedAtInit(in Input) Decision {
	end := EndedCursor(in.EndAtMs)
	d := Decision{Action: Initialize, DueMs: end, NextFireAtMs: end, Ended: true}
	if in.CursorMs == nil {
		if p, ok := PassRange(in.Schedule, PassOutsideBounds, max(end, in.RevisionCreatedAtMs), in.NowMs); ok {
			d.Passed = append(d.Passed, p)
		}
	}
	return d
}

// applyEnd sets the row's next due time, or ends the row when its next
// occurrence lies beyond endAt (or the cron has none left, nextOK false):
// the occurrences that fell due after endAt up to now are passed as
// outside the bounds, and the cursor stops at EndedCursor with no due
// time. An occurrence within the bounds whose jittered time falls after
// endAt still fires.
func applyEnd(in Input, d Decision, nextOK bool) Decision {
	if in.EndAtMs == 0 || (nextOK && d.NextFireAtMs <= in.EndAtMs) {
		d.NextDueAtMs = fireAt(in, d.NextFireAtMs)
		return d
	}
	if p, ok := PassRange(in.Schedule, PassOutsideBounds, EndedCursor(in.EndAtMs), in.NowMs); ok {
		d.Passed = append(d.Passed, p)
	}
	d.NextFireAtMs, d.NextDueAtMs, d.Ended = EndedCursor(in.EndAtMs), 0, true
	return d
}

// NextDueOffset is what a store writes beside the decision's new cursor:
// the cursor occurrence's jitter, so the row falls due at cursor + offset;
// nil when the row ended, which takes it out of every take for good.
func (d Decision) NextDueOffset() *int64 {
	if d.Ended {
		return nil
	}
	off := d.NextDueAtMs - d.NextFireAtMs
	return &off
}

// DueAtMs is the ticket's cursor's jittered due time (nil for an
// uninitialised row): the order rows are taken in.
func (tk Ticket) DueAtMs() *int64 {
	at, ok := tk.DueAt()
	if !ok {
		return nil
	}
	return &at
}

// DueAt is DueAtMs as a value, ok false for an uninitialised row: a sort
// of a page compares each row's due time more than once, and a pointer
// per comparison was an allocation each.
func (tk Ticket) DueAt() (ms int64, ok bool) {
	if tk.NextFireAtMs == nil {
		return 0, false
	}
	return FireAt(tk.TriggerID, *tk.NextFireAtMs, tk.Cron.JitterMs), true
}
