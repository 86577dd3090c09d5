package schedule

import (
	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// Superseded is what a publish reads, under its write lock, about the
// revision it replaces: that revision's spec and the schedule row's cursor
// and pause state.
type Superseded struct {
	Revision    int64
	Enabled     bool
	Cron        trigger.Cron
	CreatedAtMs int64
	// CursorMs is the row's cursor (nil: no decision initialised it).
	CursorMs *int64
	// Paused, PausedAtMs and ResumedAtMs are the row's pause columns.
	Paused                  bool
	PausedAtMs, ResumedAtMs *int64
}

// PassedAtPublish is what a publish at publishAtMs owes the ledger for the
// revision it supersedes. A revision owns the nominal occurrences from its
// creation (or startAt) up to the next revision's creation; the new one
// starts at publishAtMs (Decide anchors there). The superseded revision's
// occurrences from its cursor (or, uninitialised, its first occurrence)
// up to publishAtMs that no decision has passed yet are recorded by the
// publish itself, in its transaction, which is the one that moves the
// cursor past them: as disabled when that revision was disabled, as
// paused inside the row's pause, and as republished otherwise. Nothing is
// caught up: a Run for an occurrence of a revision that no longer exists
// would run what the user just replaced. A replaced revision whose cron
// does not parse here (a zone the zone database of this host lacks, or a
// cron this server does not read) owes nothing this host can record:
// its occurrences cannot be worked out here, so no decision here reached
// them either. Its publish goes on, since a new revision is what mends it
// (the refusals of everything else that needs its occurrences say so);
// what it owed stays unrecorded.
func PassedAtPublish(s Superseded, publishAtMs int64) []Passed {
	sched, err := cron.Parse(s.Cron.Expression, s.Cron.Timezone)
	if err != nil {
		return nil
	}
	from := max(s.CreatedAtMs, s.Cron.StartAtMs)
	if s.CursorMs != nil {
		from = *s.CursorMs
	}
	to := publishAtMs - 1
	if s.Cron.EndAtMs != 0 {
		to = min(to, s.Cron.EndAtMs)
	}
	if !s.Enabled {
		if p, ok := PassRange(sched, PassDisabled, from, to); ok {
			return []Passed{p}
		}
		return nil
	}
	in := Input{Schedule: sched, Pause: PauseSpanOf(false, s.PausedAtMs, s.ResumedAtMs)}
	if s.Paused && s.PausedAtMs != nil {
		in.Pause = &PauseSpan{FromMs: *s.PausedAtMs, UntilMs: publishAtMs}
	}
	return passOver(in, PassRepublished, from, to)
}
