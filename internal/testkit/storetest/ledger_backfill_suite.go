package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// testLedgerSaysWhatABackfillGaveRunsLater checks that the ledger, an
// append-only record, still shows occurrences passed over as paused once a
// backfill gave them Runs, and that its reading says how many of each
// entry were backfilled since; an entry no backfill reached says none.
func testLedgerSaysWhatABackfillGaveRunsLater(t *testing.T, f Fixture) {
	c := trigger.Cron{Expression: "* * * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}
	d := newDefs(t, f, "alpha", c)
	id := d.Trigger.TriggerID
	if res := commit(t, f, commitParams(t, takeOne(t, f))); res.Outcome != schedule.Initialized && res.Outcome != schedule.Admitted {
		t.Fatalf("first decision: %s (%s)", res.Outcome, res.Reason)
	}
	pause(t, f, id, true, "")
	f.Elapse(3200 * time.Millisecond)
	pause(t, f, id, false, "")
	if res := commit(t, f, commitParams(t, takeOne(t, f))); res.Outcome != schedule.Admitted {
		t.Fatalf("decision after resume: %s (%s)", res.Outcome, res.Reason)
	}
	before := ledger(t, f, id)
	i := slices.IndexFunc(before, func(e schedule.LedgerEntry) bool { return e.Reason == schedule.PassPaused })
	if i < 0 || before[i].Count < 2 {
		t.Fatalf("ledger %+v; want an entry of at least two occurrences passed over as paused", before)
	}
	for _, e := range before {
		if e.Backfilled != 0 {
			t.Fatalf("entry %+v says it was backfilled before any backfill", e)
		}
	}
	paused := before[i]
	// Backfill all but the first occurrence of the paused stretch.
	filled := backfill(t, f, schedule.BackfillRequest{TriggerID: id, FromMs: paused.FirstMs + 1, ToMs: paused.LastMs, Actor: "ops"})
	if filled.Admitted != int(paused.Count)-1 {
		t.Fatalf("backfill %+v of %+v; want %d occurrences admitted", filled, paused, paused.Count-1)
	}
	after := ledger(t, f, id)
	if len(after) != len(before) {
		t.Fatalf("ledger after the backfill %+v; want the same %d entries (it is append-only)", after, len(before))
	}
	for k, e := range after {
		want := before[k]
		if k == i {
			want.Backfilled = paused.Count - 1
		}
		if e != want {
			t.Errorf("entry %d after the backfill %+v; want %+v", k, e, want)
		}
	}
}
