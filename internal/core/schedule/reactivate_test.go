package schedule

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/trigger"
)

func TestAReactivationRecordsWhatFellDueWhileArchivedAndMovesTheCursorPastIt(t *testing.T) {
	t.Parallel()
	everyMin := trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}
	at := t0 + 10*minute + 1
	zero := int64(0)
	cases := map[string]struct {
		s    Superseded
		want Reactivation
	}{
		"from the cursor up to the reactivation, none of it run": {
			Superseded{Revision: 1, Enabled: true, Cron: everyMin, CreatedAtMs: t0 - minute, CursorMs: cursor(t0 + 4*minute)},
			Reactivation{Moved: true, Passed: []Passed{{Reason: PassProjectArchived, FirstMs: t0 + 4*minute, LastMs: t0 + 10*minute, Count: 7}},
				CursorMs: t0 + 11*minute, DueOffsetMs: &zero},
		},
		"uninitialised: from the revision's first occurrence": {
			Superseded{Revision: 1, Enabled: true, Cron: everyMin, CreatedAtMs: t0 + 8*minute - 1},
			Reactivation{Moved: true, Passed: []Passed{{Reason: PassProjectArchived, FirstMs: t0 + 8*minute, LastMs: t0 + 10*minute, Count: 3}},
				CursorMs: t0 + 11*minute, DueOffsetMs: &zero},
		},
		"paused now: from the pause on as paused": {
			Superseded{Revision: 1, Enabled: true, Cron: everyMin, CreatedAtMs: t0, CursorMs: cursor(t0 + 2*minute), Paused: true, PausedAtMs: cursor(t0 + 6*minute - 1)},
			Reactivation{Moved: true, Passed: []Passed{{Reason: PassProjectArchived, FirstMs: t0 + 2*minute, LastMs: t0 + 5*minute, Count: 4},
				{Reason: PassPaused, FirstMs: t0 + 6*minute, LastMs: t0 + 10*minute, Count: 5}},
				CursorMs: t0 + 11*minute, DueOffsetMs: &zero},
		},
		"nothing due yet: the row is left alone": {
			Superseded{Revision: 1, Enabled: true, Cron: everyMin, CreatedAtMs: t0, CursorMs: cursor(t0 + 11*minute)}, Reactivation{},
		},
		"an ended row is left alone": {
			Superseded{Revision: 1, Enabled: true, Cron: trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.Skip, EndAtMs: t0 + 2*minute},
				CreatedAtMs: t0, CursorMs: cursor(EndedCursor(t0 + 2*minute))}, Reactivation{},
		},
		"an endAt inside the archive ends the row, the later occurrences outside its bounds": {
			Superseded{Revision: 1, Enabled: true, Cron: trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce, EndAtMs: t0 + 5*minute},
				CreatedAtMs: t0, CursorMs: cursor(t0 + 3*minute)},
			Reactivation{Moved: true, Passed: []Passed{{Reason: PassProjectArchived, FirstMs: t0 + 3*minute, LastMs: t0 + 5*minute, Count: 3},
				{Reason: PassOutsideBounds, FirstMs: t0 + 6*minute, LastMs: t0 + 10*minute, Count: 5}},
				CursorMs: EndedCursor(t0 + 5*minute)},
		},
	}
	for name, c := range cases {
		got, err := PassedAtReactivation(jitterTrigger, c.s, at)
		if err != nil || !sameReactivation(got, c.want) {
			t.Errorf("%s: got %+v (%v), want %+v", name, got, err, c.want)
		}
	}
	jittered := everyMin
	jittered.JitterMs = 30_000
	got, err := PassedAtReactivation(jitterTrigger, Superseded{Revision: 1, Enabled: true, Cron: jittered, CreatedAtMs: t0, CursorMs: cursor(t0)}, at)
	if err != nil || got.CursorMs != t0+11*minute || got.DueOffsetMs == nil || *got.DueOffsetMs != JitterOffset(jitterTrigger, t0+11*minute, 30_000) {
		t.Fatalf("jittered: got %+v (%v); want the next occurrence with its own jitter", got, err)
	}
}

func sameReactivation(a, b Reactivation) bool {
	sameOffset := (a.DueOffsetMs == nil) == (b.DueOffsetMs == nil) && (a.DueOffsetMs == nil || *a.DueOffsetMs == *b.DueOffsetMs)
	return a.Moved == b.Moved && slices.Equal(a.Passed, b.Passed) && a.CursorMs == b.CursorMs && sameOffset
}
