package storetest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// republishCases are the guarantees of a publish that replaces a revision:
// the replaced revision's occurrences that no decision reached are
// recorded in the publish's own transaction (as republished, paused or
// disabled), none is caught up, and the new revision starts at its
// creation.
func republishCases() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"ARepublishRecordsTheReplacedRevisionsUndecidedOccurrences": testRepublishRecordsOwed,
		"ARepublishOfAPausedTriggerRecordsItsOccurrencesAsPaused":   testRepublishPaused,
		"ADisabledTriggersOccurrencesAreRecordedWhenReEnabled":      testDisabledRecordedOnEnable,
		"EnableAndDisablePublishAFlippedRevisionAudited":            testEnableDisable,
		"AStoredZoneThisHostLacksRefusesAnEnableAndTakesARepublish": testStoredZoneUnknown,
	}
}

// republish publishes spec as the next revision of d's trigger.
func republish(t *testing.T, f Fixture, d defs, expected int64, spec trigger.Spec) trigger.Revision {
	t.Helper()
	return publishTrigger(t, f, d.Project.ID, d.Trigger.TriggerID, d.Task, expected, spec)
}

// requireOnly requires the trigger's ledger to be exactly one entry, of
// reason at revision, spanning [from, to] with count occurrences.
func requireOnly(t *testing.T, f Fixture, triggerID string, reason schedule.PassReason, revision, from, to, count int64) {
	t.Helper()
	got := ledger(t, f, triggerID)
	if len(got) != 1 {
		t.Fatalf("ledger of %s: %+v; want one %s entry", triggerID, got, reason)
	}
	e := got[0]
	if e.Reason != reason || e.TriggerRevision != revision || e.Count != count || e.AtLeast || e.FirstMs < from || e.LastMs > to {
		t.Fatalf("ledger entry %+v; want %s at revision %d, %d occurrences within [%d, %d]", e, reason, revision, count, from, to)
	}
}

func testRepublishRecordsOwed(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	c.MisfirePolicy = trigger.Skip
	d := newDefs(t, f, "alpha", c)
	initialise(t, f)
	// Three hours of the first revision's occurrences fall due and no
	// decision reaches them before the new revision is published.
	makeDue(t, f, d.Trigger.TriggerID, 3*60*60_000)
	cursor := *row(t, f, d.Trigger.TriggerID).NextFireAtMs
	next := d.Trigger.Spec
	next.Cron = quietCron(t, f)
	next.Cron.Timezone = "Europe/Berlin"
	r2 := republish(t, f, d, d.Trigger.Revision, next)
	want := hourlyAt(quietMinute(c), cursor, r2.CreatedAtMs-1)
	requireOnly(t, f, d.Trigger.TriggerID, schedule.PassRepublished, d.Trigger.Revision, cursor, r2.CreatedAtMs-1, want)
	// The new revision starts at its creation: its first decision
	// initialises, passes nothing over and admits nothing.
	p := commitParams(t, takeOne(t, f))
	if res := commit(t, f, p); res.Outcome != schedule.Initialized || len(p.Decision.Passed) != 0 {
		t.Fatalf("the new revision's first decision: %s (%s) passing %+v; want initialized, nothing passed", res.Outcome, res.Reason, p.Decision.Passed)
	}
	if got := counts(t, f, d.Trigger.TriggerID); got.Runs != 0 {
		t.Fatalf("%d runs after a republish; the replaced revision's occurrences are never caught up", got.Runs)
	}
	// A second republish with nothing undecided records nothing more.
	r3 := republish(t, f, d, r2.Revision, d.Trigger.Spec)
	if got := ledger(t, f, d.Trigger.TriggerID); len(got) != 1 || r3.Revision != 3 {
		t.Fatalf("ledger after a republish with nothing owed: %+v", got)
	}
}

func testRepublishPaused(t *testing.T, f Fixture) {
	c := trigger.Cron{Expression: "* * * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}
	d := newDefs(t, f, "alpha", c)
	if res := commit(t, f, commitParams(t, takeOne(t, f))); res.Outcome != schedule.Initialized && res.Outcome != schedule.Admitted {
		t.Fatalf("first decision: %s (%s)", res.Outcome, res.Reason)
	}
	before := len(ledger(t, f, d.Trigger.TriggerID))
	makeDue(t, f, d.Trigger.TriggerID, 3000)
	cursor := *row(t, f, d.Trigger.TriggerID).NextFireAtMs
	paused := pause(t, f, d.Trigger.TriggerID, true, "maintenance")
	f.Elapse(1100 * time.Millisecond)
	next := d.Trigger.Spec
	next.Cron.MisfirePolicy = trigger.Skip
	r2 := republish(t, f, d, d.Trigger.Revision, next)
	got := ledger(t, f, d.Trigger.TriggerID)
	var republished, inPause int64
	for _, e := range got[:len(got)-before] {
		if e.TriggerRevision != d.Trigger.Revision {
			t.Fatalf("entry %+v names revision %d, want the replaced %d", e, e.TriggerRevision, d.Trigger.Revision)
		}
		switch e.Reason {
		case schedule.PassRepublished:
			if e.LastMs >= paused.AtMs {
				t.Fatalf("republished entry %+v reaches into the pause at %d", e, paused.AtMs)
			}
			republished += e.Count
		case schedule.PassPaused:
			if e.FirstMs < paused.AtMs || e.LastMs >= r2.CreatedAtMs {
				t.Fatalf("paused entry %+v lies outside [%d, %d)", e, paused.AtMs, r2.CreatedAtMs)
			}
			inPause += e.Count
		default:
			t.Fatalf("unexpected entry %+v", e)
		}
	}
	wantRep, wantPaused := seconds(cursor, paused.AtMs-1), seconds(paused.AtMs, r2.CreatedAtMs-1)
	if republished != wantRep || inPause != wantPaused || wantRep < 2 || wantPaused < 1 {
		t.Fatalf("ledger %+v: %d republished and %d paused; want %d and %d", got, republished, inPause, wantRep, wantPaused)
	}
	if tks := take(t, f, schedule.MaxPageSize); len(tks) != 0 {
		t.Fatalf("a paused trigger was taken after its republish (%d tickets); pause is schedule state", len(tks))
	}
}

func testDisabledRecordedOnEnable(t *testing.T, f Fixture) {
	c := trigger.Cron{Expression: "* * * * * *", Timezone: "UTC", MisfirePolicy: trigger.Skip}
	d := newDefs(t, f, "alpha", c)
	off := d.Trigger.Spec
	off.Enabled = false
	r2 := republish(t, f, d, d.Trigger.Revision, off)
	if tks := take(t, f, schedule.MaxPageSize); len(tks) != 0 {
		t.Fatalf("a disabled trigger was taken (%d tickets)", len(tks))
	}
	f.Elapse(1100 * time.Millisecond)
	r3 := republish(t, f, d, r2.Revision, d.Trigger.Spec)
	var disabled int64
	for _, e := range ledger(t, f, d.Trigger.TriggerID) {
		switch {
		case e.Reason == schedule.PassDisabled && e.TriggerRevision == r2.Revision:
			if e.FirstMs < r2.CreatedAtMs || e.LastMs >= r3.CreatedAtMs {
				t.Fatalf("disabled entry %+v lies outside the disabled revision's life [%d, %d)", e, r2.CreatedAtMs, r3.CreatedAtMs)
			}
			disabled += e.Count
		case e.Reason == schedule.PassRepublished && e.TriggerRevision == d.Trigger.Revision:
		default:
			t.Fatalf("unexpected entry %+v", e)
		}
	}
	if want := seconds(r2.CreatedAtMs, r3.CreatedAtMs-1); disabled != want || want < 1 {
		t.Fatalf("%d occurrences recorded as disabled, want %d", disabled, want)
	}
	// Re-enabling catches nothing up: the first decision starts at the
	// enabled revision's creation.
	p := commitParams(t, takeOne(t, f))
	if res := commit(t, f, p); res.Outcome == schedule.Admitted && p.Decision.ScheduledForMs < r3.CreatedAtMs {
		t.Fatalf("re-enabling admitted %d, an occurrence of the disabled revision", p.Decision.ScheduledForMs)
	}
}

func testEnableDisable(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	set := func(on bool) catalog.EnableResult {
		t.Helper()
		res, err := f.Service.TriggerSetEnabled(t.Context(), catalog.EnableRequest{ProjectID: d.Project.ID, Name: d.Trigger.Spec.Name, Enabled: on, Actor: "conformance"})
		if err != nil {
			t.Fatalf("enabled=%v: %v", on, err)
		}
		return res
	}
	if res := set(true); res.Changed || !res.Enabled || res.Revision != d.Trigger.Revision {
		t.Fatalf("enabling an enabled trigger gave %+v, want an unchanged no-op", res)
	}
	off := set(false)
	if !off.Changed || off.Enabled || off.Revision != d.Trigger.Revision+1 {
		t.Fatalf("disable gave %+v, want a new revision %d", off, d.Trigger.Revision+1)
	}
	cur, err := f.Catalog.TriggerByName(t.Context(), d.Project.ID, d.Trigger.Spec.Name)
	if err != nil || cur.Spec.Enabled || cur.Revision != off.Revision || cur.Spec.Cron != d.Trigger.Spec.Cron || cur.TaskRevision != d.Trigger.TaskRevision {
		t.Fatalf("the disabled revision %+v (%v); want the same spec and pin with enabled false", cur, err)
	}
	if tks := take(t, f, schedule.MaxPageSize); len(tks) != 0 {
		t.Fatalf("a disabled trigger was taken (%d tickets)", len(tks))
	}
	if res := set(false); res.Changed || res.Revision != off.Revision {
		t.Fatalf("disabling a disabled trigger gave %+v, want an unchanged no-op", res)
	}
	if on := set(true); !on.Changed || !on.Enabled || on.Revision != off.Revision+1 {
		t.Fatalf("enable gave %+v", on)
	}
	audits, err := f.Audits(t.Context(), d.Trigger.TriggerID)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"disable conformance ", "enable conformance "}; !slices.Equal(audits, want) {
		t.Fatalf("audit %q, want %q", audits, want)
	}
}

// A trigger whose stored zone the zone database of this host lacks (a
// server with a newer one published it) is refused an enable or disable
// saying so — which zone, and that a zone database that has it or the
// trigger applied again with a known zone mends it — never as a zone to
// write otherwise; and it takes a republish with a zone this host knows,
// the way out, though its replaced revision owes occurrences this host
// cannot work out. The republished trigger enables and disables again.
func testStoredZoneUnknown(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	makeDue(t, f, d.Trigger.TriggerID, 3*60*60_000)
	stored := d.Trigger.Spec
	stored.Cron.Timezone = "Mars/Olympus"
	tamper(t, f.Tamper.SetZone(t.Context(), d.Trigger.TriggerID, stored.Cron.Timezone,
		trigger.ContentDigest(d.Project.ID, d.Trigger.TriggerID, d.Trigger.TaskID, d.Trigger.TaskRevision, d.Trigger.TaskContentDigest, stored)))
	set := func(on bool) (catalog.EnableResult, error) {
		return f.Service.TriggerSetEnabled(t.Context(), catalog.EnableRequest{ProjectID: d.Project.ID, Name: d.Trigger.Spec.Name, Enabled: on, Actor: "conformance"})
	}
	_, err := set(false)
	if !qlerror.Is(err, qlerror.FailedPrecondition) || qlerror.ReasonOf(err) != schedule.RefusalTriggerZoneUnknown || qlerror.ParamsOf(err)["zone"] != "Mars/Olympus" {
		t.Fatalf("disabling a trigger of a zone this host lacks: %v (reason %q, params %v); want failed_precondition because %s naming the zone",
			err, qlerror.ReasonOf(err), qlerror.ParamsOf(err), schedule.RefusalTriggerZoneUnknown)
	}
	for _, w := range []string{`this server does not know its time zone "Mars/Olympus"`, "the tzdata package", "ZONEINFO", "apply the trigger again with a zone this host knows"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the refusal %q lacks %q", err, w)
		}
	}
	next := stored
	next.Cron.Timezone = "UTC"
	r2 := republish(t, f, d, d.Trigger.Revision, next)
	if cur, err := f.Catalog.TriggerByName(t.Context(), d.Project.ID, d.Trigger.Spec.Name); err != nil || cur.Revision != r2.Revision || cur.Spec.Cron.Timezone != "UTC" {
		t.Fatalf("after the republish the trigger is %+v (%v); want revision %d in UTC", cur, err, r2.Revision)
	}
	if res, err := set(false); err != nil || !res.Changed || res.Revision != r2.Revision+1 {
		t.Fatalf("disabling the republished trigger: %+v, %v; want revision %d", res, err, r2.Revision+1)
	}
}
