package storetest

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// backfillPreviewCases are the guarantees a backfill's preview stands on:
// a dry run counts what the backfill then does and writes nothing, and a
// window over the cap can be refused whole rather than cut.
func backfillPreviewCases() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"ABackfillDryRunCountsWhatTheBackfillThenDoesAndWritesNothing": testBackfillDryRun,
		"ABackfillRefusingOverMaxAdmitsNothingOfAWindowThatHoldsMore":  testBackfillRefuseOverMax,
	}
}

func testBackfillDryRun(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	d := newDefs(t, f, "alpha", c)
	id := d.Trigger.TriggerID
	initialise(t, f)
	now := nowOf(t, f)
	want := cronTimes(t, c, now-6*60*60_000, now-1)
	backfill(t, f, schedule.BackfillRequest{TriggerID: id, FromMs: want[0], ToMs: want[1]})
	before := counts(t, f, id)
	req := schedule.BackfillRequest{TriggerID: id, FromMs: want[0], ToMs: now - 1, Actor: "ops"}
	dry := req
	dry.DryRun = true
	preview := backfill(t, f, dry)
	if got := counts(t, f, id); got != before {
		t.Fatalf("a dry run left %+v, want %+v as before it", got, before)
	}
	if preview.Occurrences != len(want) || preview.Existing != 2 || preview.Admitted != len(want)-2 || len(preview.RunIDs) != 0 ||
		preview.FirstMs != want[0] || preview.LastMs != want[len(want)-1] {
		t.Fatalf("dry run %+v; want %d occurrences from %d to %d, two existing and no run ids", preview, len(want), want[0], want[len(want)-1])
	}
	done := backfill(t, f, req)
	if len(done.RunIDs) != done.Admitted {
		t.Fatalf("backfill %+v: %d run ids for %d admitted", done, len(done.RunIDs), done.Admitted)
	}
	done.RunIDs = nil
	if done.Occurrences != preview.Occurrences || done.Admitted != preview.Admitted || done.Existing != preview.Existing ||
		done.FirstMs != preview.FirstMs || done.LastMs != preview.LastMs || done.Truncated != preview.Truncated {
		t.Fatalf("backfill %+v after its dry run %+v: want the same counts", done, preview)
	}
	if got := counts(t, f, id); got.Runs != len(want) {
		t.Fatalf("%d runs after the backfill, want one per occurrence (%d)", got.Runs, len(want))
	}
}

func testBackfillRefuseOverMax(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	d := newDefs(t, f, "alpha", c)
	id := d.Trigger.TriggerID
	initialise(t, f)
	now := nowOf(t, f)
	want := cronTimes(t, c, now-4*60*60_000, now-1)
	over := schedule.BackfillRequest{TriggerID: id, FromMs: want[0], ToMs: now - 1, Max: len(want) - 1, RefuseOverMax: true}
	for _, dry := range []bool{true, false} {
		over.DryRun = dry
		_, err := f.Manual.TriggerBackfill(t.Context(), over)
		requireCode(t, err, qlerror.Invalid, "a backfill over its cap")
		if r := qlerror.ReasonOf(err); r != schedule.RefusalBackfillTooMany {
			t.Fatalf("a backfill over its cap (dry run %t): reason %q, want %q", dry, r, schedule.RefusalBackfillTooMany)
		}
	}
	if got := counts(t, f, id); got.Runs != 0 {
		t.Fatalf("refused backfills wrote %d runs", got.Runs)
	}
	exact := over
	exact.DryRun, exact.Max = false, len(want)
	if res := backfill(t, f, exact); res.Admitted != len(want) || res.Truncated {
		t.Fatalf("a backfill of exactly its cap: %+v, want all %d admitted", res, len(want))
	}
}
