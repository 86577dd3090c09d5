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
		"ABackfillTakingNoOccurrenceSaysWhyTheWindowsAreNotItsToTake":  testBackfillSaysWhyNoneTaken,
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

// A backfill, and its dry run alike, that takes no occurrence of a window
// holding some of the cron says why: they all lie before the trigger's
// startAt, after its endAt (whether the window lies wholly beyond the
// bound or reaches across it), or at or after the row's cursor (the
// clock's still, whether or not the window starts before it). A window
// holding none, and one that takes some, say nothing.
func testBackfillSaysWhyNoneTaken(t *testing.T, f Fixture) {
	const hour = 60 * 60_000
	c := quietCron(t, f)
	now := nowOf(t, f)
	bounded := c
	bounded.StartAtMs, bounded.EndAtMs = now-10*hour, now-5*hour
	b := newDefs(t, f, "alpha", bounded).Trigger.TriggerID
	open := newDefs(t, f, "beta", c).Trigger.TriggerID
	initialise(t, f)
	cursor := cronTimes(t, c, now-3*hour, now-1)[0]
	moveCursor(t, f, open, cursor, offset(0))
	// The trigger's first occurrence, at or after startAt, and its last, at
	// or before endAt; the cron's occurrences an hour beyond each lie
	// outside the bounds.
	first := cronTimes(t, bounded, bounded.StartAtMs, bounded.EndAtMs)[0]
	last := cronTimes(t, bounded, bounded.EndAtMs-hour, bounded.EndAtMs)[0]
	for _, x := range []struct {
		what      string
		triggerID string
		from, to  int64
		want      schedule.NoneTaken
	}{
		{"a window ending before startAt", b, now - 20*hour, bounded.StartAtMs - 1, schedule.NoneTaken{Reason: schedule.NoneBeforeStart, AtMs: bounded.StartAtMs}},
		{"a window starting after endAt", b, bounded.EndAtMs + 1, now - 1, schedule.NoneTaken{Reason: schedule.NoneAfterEnd, AtMs: bounded.EndAtMs}},
		{"a window across startAt whose occurrence precedes it", b, first - hour, first - 1, schedule.NoneTaken{Reason: schedule.NoneBeforeStart, AtMs: bounded.StartAtMs}},
		{"a window across endAt whose occurrence follows it", b, last + 1, last + hour, schedule.NoneTaken{Reason: schedule.NoneAfterEnd, AtMs: bounded.EndAtMs}},
		{"a window across startAt with no occurrence", b, first - hour + 1, first - 1, schedule.NoneTaken{}},
		{"a window from the cursor on", open, cursor, now - 1, schedule.NoneTaken{Reason: schedule.NoneNotDecided, AtMs: cursor}},
		{"a window whose occurrences all follow the cursor", open, cursor - hour/2, now - 1, schedule.NoneTaken{Reason: schedule.NoneNotDecided, AtMs: cursor}},
		{"a window with no occurrence", open, cursor - hour/2, cursor - hour/4, schedule.NoneTaken{}},
	} {
		for _, dry := range []bool{true, false} {
			res := backfill(t, f, schedule.BackfillRequest{TriggerID: x.triggerID, FromMs: x.from, ToMs: x.to, DryRun: dry})
			if res.Occurrences != 0 || res.NoneTaken != x.want {
				t.Errorf("%s (dry run %t): %+v, want no occurrence and %+v", x.what, dry, res, x.want)
			}
		}
	}
	if res := backfill(t, f, schedule.BackfillRequest{TriggerID: b, FromMs: bounded.StartAtMs, ToMs: bounded.EndAtMs, DryRun: true}); res.Occurrences == 0 || res.NoneTaken != (schedule.NoneTaken{}) {
		t.Errorf("a window within the bounds: %+v, want its occurrences and no reason", res)
	}
}
