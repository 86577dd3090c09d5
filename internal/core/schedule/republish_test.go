package schedule

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/trigger"
)

func TestAPublishOwesTheReplacedRevisionItsUndecidedOccurrences(t *testing.T) {
	t.Parallel()
	everyMin := trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}
	publish := t0 + 10*minute + 1
	cases := map[string]struct {
		s    Superseded
		want []Passed
	}{
		"from the cursor up to the publish, the publish instant excluded": {
			Superseded{Revision: 1, Enabled: true, Cron: everyMin, CreatedAtMs: t0 - minute, CursorMs: cursor(t0 + 4*minute)},
			[]Passed{{Reason: PassRepublished, FirstMs: t0 + 4*minute, LastMs: t0 + 10*minute, Count: 7}},
		},
		"uninitialised: from the revision's creation": {
			Superseded{Revision: 1, Enabled: true, Cron: everyMin, CreatedAtMs: t0 + 8*minute - 1},
			[]Passed{{Reason: PassRepublished, FirstMs: t0 + 8*minute, LastMs: t0 + 10*minute, Count: 3}},
		},
		"disabled: every occurrence of its life": {
			Superseded{Revision: 2, Cron: everyMin, CreatedAtMs: t0 + 5*minute},
			[]Passed{{Reason: PassDisabled, FirstMs: t0 + 5*minute, LastMs: t0 + 10*minute, Count: 6}},
		},
		"paused now: from the pause on as paused": {
			Superseded{Revision: 1, Enabled: true, Cron: everyMin, CreatedAtMs: t0, CursorMs: cursor(t0 + 2*minute), Paused: true, PausedAtMs: cursor(t0 + 6*minute - 1)},
			[]Passed{{Reason: PassRepublished, FirstMs: t0 + 2*minute, LastMs: t0 + 5*minute, Count: 4},
				{Reason: PassPaused, FirstMs: t0 + 6*minute, LastMs: t0 + 10*minute, Count: 5}},
		},
		"a resumed pause no decision passed yet": {
			Superseded{Revision: 1, Enabled: true, Cron: everyMin, CreatedAtMs: t0, CursorMs: cursor(t0), PausedAtMs: cursor(t0 + minute), ResumedAtMs: cursor(t0 + 3*minute)},
			[]Passed{{Reason: PassRepublished, FirstMs: t0, LastMs: t0, Count: 1},
				{Reason: PassPaused, FirstMs: t0 + minute, LastMs: t0 + 2*minute, Count: 2},
				{Reason: PassRepublished, FirstMs: t0 + 3*minute, LastMs: t0 + 10*minute, Count: 8}},
		},
		"a cursor after the publish owes nothing": {
			Superseded{Revision: 1, Enabled: true, Cron: everyMin, CreatedAtMs: t0, CursorMs: cursor(t0 + 11*minute)}, nil,
		},
		"an ended revision owes nothing past its end": {
			Superseded{Revision: 1, Enabled: true, Cron: trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.Skip, EndAtMs: t0 + 2*minute},
				CreatedAtMs: t0, CursorMs: cursor(EndedCursor(t0 + 2*minute))}, nil,
		},
	}
	for name, c := range cases {
		got := PassedAtPublish(c.s, publish)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: got %+v, want %+v", name, got, c.want)
		}
	}
}
