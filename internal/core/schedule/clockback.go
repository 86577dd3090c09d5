package schedule

import (
	"context"
	"log/slog"
	"time"
)

// A clock that goes back (an edge device without a battery-backed clock
// that booted in the future and was corrected, a database server's clock
// set back) leaves every row decided meanwhile with a cursor computed from
// the later reading: the trigger's first occurrence after that reading.
// The take only returns rows whose cursor is due, so such a trigger would
// fire no more until the clock reached its cursor again — years, for a
// clock that had read years ahead.
//
// Decisions never move a cursor past the cron's next occurrence after the
// time they were made at, so a cursor that lies after the next occurrence
// from now can only have been computed while the clock read later. The
// store finds such rows among those it last wrote at a time later than its
// clock reads now, and moves each cursor back to that next occurrence
// (ReanchorTicket), under the row's version fence.
//
// The occurrences between now and the old cursor then fall due again as
// the clock reaches them. Those already admitted while the clock read
// later have their Run: an admission the store finds already holding its
// idempotency key at or before the row's last admitted occurrence
// (MayHaveItsRun) is passed over as PassClockWentBack instead of being
// admitted twice, and the row's last admitted occurrence never moves back
// (LastAdmitted), so every later one is recognised the same way.

// ClockCheckEvery is how often a scheduler asks its store for the rows a
// clock that went back left ahead. The question reads every row its store
// last wrote later than now, which is none while the clock keeps going
// forward.
const ClockCheckEvery = time.Minute

// CodeClockWentBack is the log code of a check that moved cursors back.
const CodeClockWentBack = "scheduler.clock_went_back"

// Reanchored is one row whose cursor a check moved back.
type Reanchored struct {
	TriggerID string
	// FromMs is the cursor the row had, ToMs the one it has now: the
	// trigger's first occurrence after the store's now.
	FromMs, ToMs int64
}

// Reanchorer is a Store that can find and move back the cursors a clock
// that went back left ahead (the file comment above).
type Reanchorer interface {
	// ScheduleReanchor moves back the cursor of every row of an enabled
	// trigger, paused or not, that it last wrote while its clock read later
	// than it reads now, and whose cursor lies after the trigger's first
	// occurrence after now (the cluster leaves a row it could not claim
	// for another reason — an archived project's — to a check after that
	// ends, its writes never moving a row's write time back): to that
	// occurrence, with its jitter, as ReanchorTicket decides from the row's
	// ticket observed at now, only while the row still has the version it
	// read (a row changed meanwhile is left to the next check). Moving a
	// cursor bumps the row's version and, where takes claim rows, gives
	// back a claim taken while the clock read later: that claim's lease
	// runs out only when the clock reaches that time again. It reports the
	// rows it moved.
	ScheduleReanchor(ctx context.Context) ([]Reanchored, error)
}

// ReanchorTicket is the decision that moves back the cursor of tk, a row
// last written while the clock read later than tk.ObservedAtMs (the
// store's now): an Initialize whose NextFireAtMs is the trigger's first
// occurrence after now (not before its startAt) and NextDueAtMs that
// occurrence's jittered due time; moved is false when the row's cursor
// already lies at or before that occurrence, when the row has no cursor
// yet, or when no occurrence is left within the trigger's bounds. A row
// that ended while the clock read later is opened again when an occurrence
// after now lies within its bounds.
func ReanchorTicket(tk Ticket) (d Decision, moved bool, err error) {
	if tk.NextFireAtMs == nil {
		return Decision{}, false, nil
	}
	s, err := parseTicket(tk)
	if err != nil {
		return Decision{}, false, err
	}
	in := ticketInput(s, tk, 0)
	next, ok := s.Next(max(in.NowMs, in.StartAtMs-1))
	if !ok || afterEnd(in, next) || next >= *tk.NextFireAtMs {
		return Decision{}, false, nil
	}
	return Decision{Action: Initialize, DueMs: *tk.NextFireAtMs, NextFireAtMs: next, NextDueAtMs: fireAt(in, next)}, true, nil
}

// MayHaveItsRun reports whether the occurrence d admits may already have a
// Run although tk's fence held: it lies at or before the row's last
// admitted occurrence, which only a cursor moved back after the clock went
// back (ReanchorTicket) can reach. A store that finds its idempotency key
// taken then writes d.PassedAs(PassClockWentBack) in its place; for any
// other admission a taken key still fails closed as ReasonOccurrenceExists.
func MayHaveItsRun(tk Ticket, d Decision) bool {
	return d.Action == Admit && tk.LastScheduledAtMs != nil && d.ScheduledForMs <= *tk.LastScheduledAtMs
}

// LastAdmitted is the row's last admitted occurrence once the admission of
// scheduledForMs is written: the later of the two, so that an occurrence
// admitted after a cursor was moved back does not hide the later ones the
// row admitted while the clock read later (MayHaveItsRun).
func LastAdmitted(lastScheduledAtMs *int64, scheduledForMs int64) int64 {
	if lastScheduledAtMs == nil {
		return scheduledForMs
	}
	return max(*lastScheduledAtMs, scheduledForMs)
}

// ClockStepMs is how far behind the newest reading of its clock a
// scheduler must see a new one before it counts the clock as having gone
// back (ClockWatch.Saw): far more than two readings of one clock ever
// disagree by while it goes forward.
const ClockStepMs = 1_000

// ClockWatch asks a Reanchorer store for the rows a clock that went back
// left ahead: at a scheduler's first round, at the next round after its
// clock was seen going back (Saw), and at least every ClockCheckEvery,
// timed by the monotonic clock, which a wall clock set back does not
// stop. The zero value with Log set checks at once; a scheduler's loop
// goroutine owns it.
type ClockWatch struct {
	// Log receives one warning per check that moved rows, or that failed.
	Log     *slog.Logger
	last    time.Time
	newest  int64
	stepped bool
}

// Saw records a reading of the store's clock (the injected clock of a
// single node): one more than ClockStepMs behind the newest reading seen
// has the next Check ask at once, and becomes the newest.
func (w *ClockWatch) Saw(ms int64) {
	if ms < w.newest-ClockStepMs {
		w.stepped, w.newest = true, ms
		return
	}
	w.newest = max(w.newest, ms)
}

// Check asks st when a check is due and st is a Reanchorer. A failed
// check is logged and tried again at the next one due; it never fails the
// round.
func (w *ClockWatch) Check(ctx context.Context, st Store) {
	rs, ok := st.(Reanchorer)
	if !ok || (!w.stepped && !w.last.IsZero() && time.Since(w.last) < ClockCheckEvery) {
		return
	}
	w.last, w.stepped = time.Now(), false
	moved, err := rs.ScheduleReanchor(ctx)
	if err != nil {
		if ctx.Err() == nil {
			w.Log.Warn("could not look for triggers a clock that went back left waiting; looking again at the next check",
				append([]any{slog.String("code", CodeClockWentBack)}, ErrorAttrs(err)...)...)
		}
		return
	}
	if len(moved) == 0 {
		return
	}
	first := moved[0]
	w.Log.Warn("the clock went back: triggers whose next occurrence was computed while it read later now fire at their next occurrence from now",
		slog.String("code", CodeClockWentBack), slog.Int("triggers", len(moved)),
		slog.String("trigger_id", first.TriggerID),
		slog.String("from", time.UnixMilli(first.FromMs).UTC().Format(time.RFC3339)),
		slog.String("to", time.UnixMilli(first.ToMs).UTC().Format(time.RFC3339)))
}
