package schedule

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/trigger"
)

func TestACursorComputedWhileTheClockReadLaterMovesBackToTheNextOccurrenceFromNow(t *testing.T) {
	t.Parallel()
	years := 10 * 365 * 24 * 60 * minute
	now := t0 + 30_000
	cases := map[string]struct {
		cron   trigger.Cron
		cursor *int64
		want   *int64 // nil: not moved
	}{
		"years ahead: to the next occurrence from now": {
			cron: trigger.Cron{Expression: "* * * * *", Timezone: "UTC"}, cursor: cursor(t0 + years), want: cursor(t0 + minute),
		},
		"one occurrence ahead of the next: moved": {
			cron: trigger.Cron{Expression: "* * * * *", Timezone: "UTC"}, cursor: cursor(t0 + 2*minute), want: cursor(t0 + minute),
		},
		"already the next occurrence: left": {
			cron: trigger.Cron{Expression: "* * * * *", Timezone: "UTC"}, cursor: cursor(t0 + minute),
		},
		"due already: left for the take": {
			cron: trigger.Cron{Expression: "* * * * *", Timezone: "UTC"}, cursor: cursor(t0),
		},
		"uninitialised: left for its first decision": {
			cron: trigger.Cron{Expression: "* * * * *", Timezone: "UTC"},
		},
		"a startAt ahead of now: its first occurrence": {
			cron:   trigger.Cron{Expression: "* * * * *", Timezone: "UTC", StartAtMs: t0 + 10*minute},
			cursor: cursor(t0 + years), want: cursor(t0 + 10*minute),
		},
		"ended while the clock read later, an occurrence left within endAt: opened again": {
			cron:   trigger.Cron{Expression: "* * * * *", Timezone: "UTC", EndAtMs: t0 + 5*minute},
			cursor: cursor(EndedCursor(t0 + 5*minute)), want: cursor(t0 + minute),
		},
		"no occurrence left within endAt: left": {
			cron:   trigger.Cron{Expression: "0 * * * *", Timezone: "UTC", EndAtMs: t0 + 5*minute},
			cursor: cursor(EndedCursor(t0 + 5*minute)),
		},
	}
	for name, c := range cases {
		c.cron.MisfirePolicy = trigger.FireOnce
		tk := Ticket{Snapshot: Snapshot{TriggerID: jitterTrigger, TriggerCreatedAtMs: t0 - years, Cron: c.cron, NextFireAtMs: c.cursor}, ObservedAtMs: now}
		d, moved, err := ReanchorTicket(tk)
		switch {
		case err != nil:
			t.Errorf("%s: %v", name, err)
		case c.want == nil && moved:
			t.Errorf("%s: moved to %d, want left as it is", name, d.NextFireAtMs)
		case c.want != nil && (!moved || d.Action != Initialize || d.DueMs != *c.cursor || d.NextFireAtMs != *c.want || d.NextDueAtMs != *c.want || d.Ended):
			t.Errorf("%s: %+v (moved %v), want an Initialize from %d to %d", name, d, moved, *c.cursor, *c.want)
		}
	}
	jittered := trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce, JitterMs: 30_000}
	d, moved, err := ReanchorTicket(Ticket{Snapshot: Snapshot{TriggerID: jitterTrigger, Cron: jittered, NextFireAtMs: cursor(t0 + years)}, ObservedAtMs: now})
	if err != nil || !moved || d.NextFireAtMs != t0+minute || d.NextDueAtMs != FireAt(jitterTrigger, t0+minute, 30_000) {
		t.Fatalf("jittered: %+v (moved %v, %v), want the next occurrence with its own jitter", d, moved, err)
	}
	if _, _, err := ReanchorTicket(Ticket{Snapshot: Snapshot{TriggerID: jitterTrigger, Cron: trigger.Cron{Expression: "* * * * *", Timezone: "Nowhere/Else"}, NextFireAtMs: cursor(t0 + years)}, ObservedAtMs: now}); err == nil {
		t.Fatal("a cron this host cannot read was moved; want its error")
	}
}

func TestAnAdmissionMayFindItsRunOnlyAtOrBeforeTheLastAdmittedOccurrence(t *testing.T) {
	t.Parallel()
	admit := Decision{Action: Admit, DueMs: t0, ScheduledForMs: t0}
	cases := []struct {
		last *int64
		d    Decision
		want bool
	}{
		{cursor(t0 + minute), admit, true},
		{cursor(t0), admit, true},
		{cursor(t0 - minute), admit, false},
		{nil, admit, false},
		{cursor(t0 + minute), Decision{Action: SkipLate, DueMs: t0}, false},
	}
	for _, c := range cases {
		if got := MayHaveItsRun(Ticket{Snapshot: Snapshot{LastScheduledAtMs: c.last}}, c.d); got != c.want {
			t.Errorf("last %v, %s of %d: %v, want %v", c.last, c.d.Action, c.d.ScheduledForMs, got, c.want)
		}
	}
	if LastAdmitted(cursor(t0+minute), t0) != t0+minute || LastAdmitted(cursor(t0), t0+minute) != t0+minute || LastAdmitted(nil, t0) != t0 {
		t.Fatal("the last admitted occurrence moved back")
	}
}

// reanchoringStore counts the checks a ClockWatch asks for.
type reanchoringStore struct {
	recordingStore
	checks int
	moved  []Reanchored
}

func (s *reanchoringStore) ScheduleReanchor(context.Context) ([]Reanchored, error) {
	s.checks++
	return s.moved, nil
}

func TestAClockWatchChecksAtOnceThenAfterASeenStepBackAndSaysWhatItMoved(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	w := ClockWatch{Log: slog.New(slog.NewTextHandler(&out, nil))}
	st := &reanchoringStore{}
	w.Saw(t0)
	w.Check(t.Context(), st)
	w.Saw(t0 + 1_000)
	w.Check(t.Context(), st)
	if st.checks != 1 {
		t.Fatalf("%d checks at the first round and one a second later, want 1 (the first)", st.checks)
	}
	w.Saw(t0 + 1_000 - ClockStepMs)
	w.Check(t.Context(), st)
	if st.checks != 1 {
		t.Fatalf("a reading %dms behind the newest was counted as the clock going back", ClockStepMs)
	}
	st.moved = []Reanchored{{TriggerID: "tg", FromMs: t0 + 10*365*24*60*minute, ToMs: t0 + minute}}
	w.Saw(t0 - minute)
	w.Check(t.Context(), st)
	if st.checks != 2 {
		t.Fatalf("%d checks after the clock went back a minute, want 2", st.checks)
	}
	w.Saw(t0 - minute + 1_000)
	w.Check(t.Context(), st)
	if st.checks != 2 {
		t.Fatal("the watch checked again at the next round although the clock went forward since it went back")
	}
	if got := out.String(); strings.Count(got, CodeClockWentBack) != 1 || !strings.Contains(got, "triggers=1") || !strings.Contains(got, "trigger_id=tg") ||
		!strings.Contains(got, "to=2026-11-30T12:01:00Z") {
		t.Fatalf("the watch logged %q, want one line saying what it moved", got)
	}
}
