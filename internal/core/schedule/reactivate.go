package schedule

import (
	"github.com/qinglong/qinglong/internal/core/cron"
)

// Reactivation is what reactivating an archived project writes for one of
// its triggers' schedule rows: the ledger entries of the occurrences it
// passes over and the row's new cursor.
type Reactivation struct {
	// Moved is false when no occurrence fell due before the reactivation
	// or the row has ended: the row is left as it is.
	Moved  bool
	Passed []Passed
	// CursorMs is the row's new cursor: the first occurrence at or after
	// the reactivation, or EndedCursor when the trigger has none left
	// within its bounds.
	CursorMs int64
	// DueOffsetMs is the new cursor's jitter; nil when the row ended.
	DueOffsetMs *int64
}

// PassedAtReactivation is what reactivating the project at reactivatedAtMs
// owes the ledger for one trigger's current revision s (read under the
// row's lock), and where it moves the row's cursor. An archived project's
// rows are never taken, so their cursors stay where the last decision
// left them; without this the first decision after the reactivation would
// catch the archive up like an outage (fire_once admitting its oldest
// occurrence late). The reactivation records every occurrence from the
// cursor (or, uninitialised, the revision's first occurrence) up to the
// reactivation instant exclusive as project_archived — paused inside the
// row's pause, as a decision would — and moves the cursor past them, in
// the transaction that sets the project active, so none runs late. The
// ones an undecided row owed from before the archive are recorded with
// them: the archive came before any decision reached them. Occurrences
// after the trigger's endAt are passed as outside_bounds and the row ends,
// as a late decision ends it.
func PassedAtReactivation(triggerID string, s Superseded, reactivatedAtMs int64) (Reactivation, error) {
	sched, err := cron.Parse(s.Cron.Expression, s.Cron.Timezone)
	if err != nil {
		return Reactivation{}, storedCronRefusal(triggerID, err, RemedyZoneData)
	}
	// The first occurrence the row owes is its cursor, as a decision reads
	// it, or for an uninitialised row the revision's first occurrence.
	from, ok := sched.Next(max(s.CreatedAtMs, s.Cron.StartAtMs) - 1)
	if s.CursorMs != nil {
		from, ok = *s.CursorMs, true
	}
	end := s.Cron.EndAtMs
	if !ok || from >= reactivatedAtMs || (end != 0 && from > end) {
		// Nothing fell due, or the row has ended (its cursor lies past
		// endAt): a decision takes it from here as it is.
		return Reactivation{}, nil
	}
	in := Input{Schedule: sched, Pause: PauseSpanOf(false, s.PausedAtMs, s.ResumedAtMs)}
	if s.Paused && s.PausedAtMs != nil {
		in.Pause = &PauseSpan{FromMs: *s.PausedAtMs, UntilMs: reactivatedAtMs}
	}
	last := reactivatedAtMs - 1
	if end != 0 {
		last = min(last, end)
	}
	r := Reactivation{Moved: true, Passed: passOver(in, PassProjectArchived, from, last)}
	next, ok := sched.Next(reactivatedAtMs - 1)
	if end != 0 && (!ok || next > end) {
		if p, ok := PassRange(sched, PassOutsideBounds, EndedCursor(end), reactivatedAtMs); ok {
			r.Passed = append(r.Passed, p)
		}
		r.CursorMs = EndedCursor(end)
		return r, nil
	}
	if !ok {
		return Reactivation{}, errNoOccurrence(sched, reactivatedAtMs-1)
	}
	off := JitterOffset(triggerID, next, s.Cron.JitterMs)
	r.CursorMs, r.DueOffsetMs = next, &off
	return r, nil
}
