package sqlitestore

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// The next due instant is one descent of the due index: no scan, no sort,
// whatever the table holds.
func TestTheNextDueInstantIsOneSearchOfTheDueIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	plan := e.queryPlan(t, qScheduleNextDue, 1)
	joined := strings.Join(plan, "\n")
	if len(plan) != 1 || !strings.HasPrefix(plan[0], "SEARCH trigger_schedules USING COVERING INDEX trigger_schedules_due") {
		t.Fatalf("next-due plan is not one search of the due index:\n%s", joined)
	}
}

// The take reports the clock reading it observed the page at and the
// earliest cursor strictly after it; none when no row is due later.
func TestTheTakeReportsTheNextDueInstant(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.defs(t, "alpha", everyMinute)
	b := e.defs(t, "beta", everyMinute)
	now := e.clock.NowMs()
	e.due(t, a.Trigger.TriggerID, 1_000)
	if _, err := e.raw.Exec(`UPDATE trigger_schedules SET next_fire_at_ms = ? WHERE trigger_id = ?`, now+7_000, b.Trigger.TriggerID); err != nil {
		t.Fatal(err)
	}
	tickets, h, err := e.store.ScheduleTakeHorizon(t.Context(), schedule.TakeParams{Limit: 16})
	if err != nil {
		t.Fatal(err)
	}
	if len(tickets) != 1 || tickets[0].TriggerID != a.Trigger.TriggerID || h.NowMs != tickets[0].ObservedAtMs {
		t.Fatalf("took %+v observed %d", tickets, h.NowMs)
	}
	if h.NextDueMs == nil || *h.NextDueMs != now+7_000 {
		t.Fatalf("next due %v, want %d", h.NextDueMs, now+7_000)
	}
	if _, err := e.raw.Exec(`UPDATE trigger_schedules SET next_fire_at_ms = ? WHERE trigger_id = ?`, now-1, b.Trigger.TriggerID); err != nil {
		t.Fatal(err)
	}
	if _, h, err = e.store.ScheduleTakeHorizon(t.Context(), schedule.TakeParams{Limit: 16}); err != nil || h.NextDueMs != nil {
		t.Fatalf("nothing due later: next due %v, err %v", h.NextDueMs, err)
	}
}
