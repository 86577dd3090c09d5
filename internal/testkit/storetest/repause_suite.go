package storetest

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// testARepauseShowsItsOwnTime: a pause that follows a resume no decision
// has passed keeps the earlier pause's start in the row, so the ledger
// records what fell due in both pauses as paused; but the time the pause
// command, a repeated pause and the trigger's detail give is the pause in
// force's own, not the earlier one's.
func testARepauseShowsItsOwnTime(t *testing.T, f Fixture) {
	c := trigger.Cron{Expression: "* * * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}
	d := newDefs(t, f, "alpha", c)
	if res := commit(t, f, commitParams(t, takeOne(t, f))); res.Outcome != schedule.Initialized && res.Outcome != schedule.Admitted {
		t.Fatalf("first decision: %s (%s)", res.Outcome, res.Reason)
	}
	one := pause(t, f, d.Trigger.TriggerID, true, "one")
	f.Elapse(1500 * time.Millisecond)
	pause(t, f, d.Trigger.TriggerID, false, "")
	f.Elapse(1500 * time.Millisecond)
	two := pause(t, f, d.Trigger.TriggerID, true, "two")
	if !two.Changed || !two.Paused || two.Note != "two" || two.AtMs < one.AtMs+3000 {
		t.Fatalf("second pause gave %+v after a first at %d; want it paused at its own time, 3 s later", two, one.AtMs)
	}
	if again := pause(t, f, d.Trigger.TriggerID, true, ""); again.Changed || again.AtMs != two.AtMs || again.Note != "two" {
		t.Fatalf("a repeated pause gave %+v; want nothing changed, paused since %d with note two", again, two.AtMs)
	}
	det, err := f.Detail.TriggerDetail(t.Context(), d.Trigger.TriggerID, 10)
	if err != nil || !det.Paused || det.PausedAtMs == nil || *det.PausedAtMs != two.AtMs || det.PauseNote != "two" {
		t.Fatalf("detail of the paused again trigger %+v (%v); want paused since %d with note two", det, err, two.AtMs)
	}
	f.Elapse(1500 * time.Millisecond)
	resumed := pause(t, f, d.Trigger.TriggerID, false, "")
	if tk := takeOne(t, f); tk.Pause == nil || tk.Pause.FromMs != one.AtMs || tk.Pause.UntilMs != resumed.AtMs {
		t.Fatalf("the ticket's pause span is %+v, want [%d, %d): the ledger covers both pauses", tk.Pause, one.AtMs, resumed.AtMs)
	}
}
