package storetest

import (
	"fmt"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// unreadableCases are the guarantees about schedule rows whose stored
// revision this host cannot read (a zone its zone database lacks, a cron
// that no longer parses: cron_invalid) or this build cannot decide (a
// misfire policy a newer build published: decision_failed): every
// decision about such a row fails closed, and however many of them are
// due, they hold no other row back.
func unreadableCases() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"RowsThisHostCannotReadDoNotHoldBackARowDueAfterThem":               testUnreadableRowsDoNotStarve,
		"AnUnreadableRowRepublishedIsTakenInTheNextRound":                   testUnreadableRepublishedTakenAtOnce,
		"ManyPagesOfUnreadableRowsAreSetAsideWithoutWaiting":                testManyUnreadableRowsAreSetAsideWithoutWaiting,
		"RowsOfAPolicyThisBuildDoesNotKnowDoNotHoldBackARowDueAfterThem":    testUnknownPolicyRowsDoNotStarve,
		"ARowOfAPolicyThisBuildDoesNotKnowRepublishedIsTakenInTheNextRound": testUnknownPolicyRepublishedTakenAtOnce,
	}
}

// spoil makes due rows this host cannot decide, and names the reason
// each one's decision fails with.
type spoil struct {
	reason schedule.Reason
	apply  func(*testing.T, Fixture, []defs)
}

// eachRow spoils every row alike, each by fn on its own.
func eachRow(fn func(*testing.T, Fixture, defs)) func(*testing.T, Fixture, []defs) {
	return func(t *testing.T, f Fixture, rows []defs) {
		t.Helper()
		for _, d := range rows {
			fn(t, f, d)
		}
	}
}

// unreadableZone is a stored zone this host's zone database lacks.
var unreadableZone = spoil{schedule.ReasonCronInvalid, eachRow(makeUnreadable)}

// unknownPolicy is a stored misfire policy this build does not know.
var unknownPolicy = spoil{schedule.ReasonDecisionFailed, eachRow(makeUnknownPolicy)}

// makeUnknownPolicy gives d's trigger a stored misfire policy this build
// does not know, as a newer build that knows it would have published it.
func makeUnknownPolicy(t *testing.T, f Fixture, d defs) {
	t.Helper()
	stored := d.Trigger.Spec
	stored.Cron.MisfirePolicy = "catch_up_all"
	tamper(t, f.Tamper.SetMisfirePolicy(t.Context(), d.Trigger.TriggerID, string(stored.Cron.MisfirePolicy),
		trigger.ContentDigest(d.Project.ID, d.Trigger.TriggerID, d.Trigger.TaskID, d.Trigger.TaskRevision, d.Trigger.TaskContentDigest, stored)))
}

// unreadablePage is the page size of these cases: the edge profile's.
const unreadablePage = 4

// unreadableRound runs one scheduler round of unreadablePage rows.
func unreadableRound(t *testing.T, f Fixture) schedule.Summary {
	t.Helper()
	sum, err := schedule.Round(t.Context(), f.Schedule, schedule.RoundConfig{PageSize: unreadablePage, GraceMs: graceMs, Parallel: 1, NewIDs: ids.Fill})
	if err != nil {
		t.Fatalf("round: %v", err)
	}
	return sum
}

// makeUnreadable gives d's trigger a stored zone this host's zone database
// lacks, as a server with a newer one would have published it.
func makeUnreadable(t *testing.T, f Fixture, d defs) {
	t.Helper()
	stored := d.Trigger.Spec
	stored.Cron.Timezone = "Mars/Olympus"
	tamper(t, f.Tamper.SetZone(t.Context(), d.Trigger.TriggerID, stored.Cron.Timezone,
		trigger.ContentDigest(d.Project.ID, d.Trigger.TriggerID, d.Trigger.TaskID, d.Trigger.TaskRevision, d.Trigger.TaskContentDigest, stored)))
}

// A page and one more of rows this host cannot read, all due before a
// readable row, never keep the readable one from being admitted: each
// round fails them closed (cron_invalid, nothing written), and a row that
// failed so is not taken again at the head of the next round, so the
// readable row is admitted by the second round of a page of four. Taken
// again each round instead, the unreadable rows would fill every page for
// as long as they are due — for ever, since their cursors never move.
func testUnreadableRowsDoNotStarve(t *testing.T, f Fixture) {
	requireAdmittedBehindUnreadable(t, f, unreadableZone, unreadablePage+1)
}

// A page and one more of rows whose stored misfire policy this build does
// not know (a newer build published it), all due before a readable row,
// never keep the readable one from being admitted: each round fails them
// closed before the commit (decision_failed, nothing written) and puts
// them aside as it does rows it cannot read, so the readable row is
// admitted by the second round of a page of four, exactly once, and the
// failed rows keep their cursors, their occurrences still owed to the
// build that can decide them.
func testUnknownPolicyRowsDoNotStarve(t *testing.T, f Fixture) {
	requireAdmittedBehindUnreadable(t, f, unknownPolicy, unreadablePage+1)
}

// Ten pages and one more of rows this host cannot read are all put aside
// by rounds run back to back, as the scheduler runs them while a full page
// says to start the next at once (Summary.StartNextAtOnce), so the
// readable row due after them is admitted before the scheduler first waits
// its cadence: had each page of them waited one, the first put aside
// would come round again (the cluster's lease, a single node's recheck)
// before the last, and hold the readable row back as long.
func testManyUnreadableRowsAreSetAsideWithoutWaiting(t *testing.T, f Fixture) {
	requireAdmittedBehindUnreadable(t, f, unreadableZone, 10*unreadablePage+1)
}

// requireAdmittedBehindUnreadable makes n rows spoilt by sp due before
// one readable row and runs rounds of unreadablePage back to back
// for as long as each says to start the next at once: the readable row
// must be admitted in that one run of rounds, in the round right after the
// last unreadable row was taken, the unreadable rows must keep their
// cursors and gain no Run, attempt or event, and the round after must take
// nothing: each unreadable row is still put aside (its claim or recheck
// lasts UnreadableRecheck), not taken again.
func requireAdmittedBehindUnreadable(t *testing.T, f Fixture, sp spoil, n int) {
	var bad []defs
	for i := range n {
		bad = append(bad, newDefs(t, f, fmt.Sprintf("mars%d", i), quietCron(t, f)))
	}
	good := initialisedDefs(t, f, "earth")
	for i, d := range bad {
		makeDue(t, f, d.Trigger.TriggerID, 3*60*60_000-int64(i)*1_000)
	}
	sp.apply(t, f, bad)
	makeDue(t, f, good.Trigger.TriggerID, 60*60_000)
	cursors, written := map[string]Row{}, map[string]Counts{}
	for _, d := range bad {
		cursors[d.Trigger.TriggerID] = row(t, f, d.Trigger.TriggerID)
		written[d.Trigger.TriggerID] = counts(t, f, d.Trigger.TriggerID)
	}

	maxRounds := n/unreadablePage + 10
	admittedIn, failed, rounds := 0, 0, 0
	for rounds < maxRounds && admittedIn == 0 {
		rounds++
		sum := unreadableRound(t, f)
		failed += sum.Reasons[sp.reason]
		if sum.Counts[schedule.Failed] != sum.Reasons[sp.reason] {
			t.Fatalf("round %d failed %d tickets, %d of them %s (%v); want only the unreadable rows to fail", rounds, sum.Counts[schedule.Failed],
				sum.Reasons[sp.reason], sp.reason, sum.Errors)
		}
		if sum.Unreadable != sum.Reasons[sp.reason] {
			t.Fatalf("round %d put %d unreadable rows out of the next take's way, of %d it failed as %s; want each", rounds, sum.Unreadable,
				sum.Reasons[sp.reason], sp.reason)
		}
		if sum.Counts[schedule.Admitted] > 0 {
			admittedIn = rounds
		} else if !sum.StartNextAtOnce(unreadablePage) {
			t.Fatalf("round %d (%v, %d taken) said to wait for the cadence before the readable row was admitted", rounds, sum.Counts, sum.Taken)
		}
	}
	t.Logf("the readable row was admitted in round %d (0: not within %d rounds) behind %d unreadable rows; %d unreadable tickets failed meanwhile",
		admittedIn, maxRounds, n, failed)
	if failed != n {
		t.Fatalf("%d tickets failed as %s; want each of the %d unreadable rows taken and failed once", failed, sp.reason, n)
	}
	if want := n/unreadablePage + 1; admittedIn != want {
		t.Fatalf("the readable row was admitted in round %d (0: never in %d rounds); want round %d behind %d unreadable rows on a page of %d",
			admittedIn, maxRounds, want, n, unreadablePage)
	}
	if c := counts(t, f, good.Trigger.TriggerID); c.Runs != 1 {
		t.Fatalf("the readable trigger has %d Runs, want 1", c.Runs)
	}
	for _, d := range bad {
		before, after := cursors[d.Trigger.TriggerID], row(t, f, d.Trigger.TriggerID)
		if !sameInt(before.NextFireAtMs, after.NextFireAtMs) || !sameInt(before.LastScheduledAtMs, after.LastScheduledAtMs) {
			t.Fatalf("unreadable trigger %s: cursor %v → %v, last %v → %v; want both kept, its occurrences still owed", d.Trigger.TriggerID,
				before.NextFireAtMs, after.NextFireAtMs, before.LastScheduledAtMs, after.LastScheduledAtMs)
		}
		if before, after := written[d.Trigger.TriggerID], counts(t, f, d.Trigger.TriggerID); after != before {
			t.Fatalf("unreadable trigger %s: %+v → %+v; want nothing written for it", d.Trigger.TriggerID, before, after)
		}
	}
	if sum := unreadableRound(t, f); sum.Taken != 0 {
		t.Fatalf("the round after the readable row's took %d rows (%v, reasons %v); want every unreadable row still put aside", sum.Taken,
			sum.Counts, sum.Reasons)
	}
}

// A row that failed as unreadable, then applied again with a zone this
// host knows, is taken by the very next round: the republish is the way
// out, and whatever keeps the failed row from the head of the queue holds
// only the revision that failed.
func testUnreadableRepublishedTakenAtOnce(t *testing.T, f Fixture) {
	requireRepublishedTakenAtOnce(t, f, unreadableZone)
}

// A row that failed on a misfire policy this build does not know, then
// applied again with one it knows, is taken by the very next round, as a
// row this host cannot read is.
func testUnknownPolicyRepublishedTakenAtOnce(t *testing.T, f Fixture) {
	requireRepublishedTakenAtOnce(t, f, unknownPolicy)
}

// requireRepublishedTakenAtOnce fails a row spoilt by sp once, requires
// the next round to leave it alone, republishes the trigger's own spec
// (a zone and policy this host knows) and requires the round after that
// to initialise it.
func requireRepublishedTakenAtOnce(t *testing.T, f Fixture, sp spoil) {
	d := initialisedDefs(t, f, "mars")
	makeDue(t, f, d.Trigger.TriggerID, 60*60_000)
	sp.apply(t, f, []defs{d})
	if sum := unreadableRound(t, f); sum.Reasons[sp.reason] != 1 || sum.Unreadable != 1 {
		t.Fatalf("the spoilt row's round: %v, reasons %v, %d put aside; want it failed as %s and put aside", sum.Counts, sum.Reasons, sum.Unreadable, sp.reason)
	}
	if sum := unreadableRound(t, f); sum.Taken != 0 {
		t.Fatalf("the round after the failure took %d rows (%v); want the failed row left alone", sum.Taken, sum.Counts)
	}
	next := d.Trigger.Spec
	next.Name += "-again"
	republish(t, f, d, d.Trigger.Revision, next)
	if sum := unreadableRound(t, f); sum.Counts[schedule.Initialized] != 1 {
		t.Fatalf("the round after the republish: %v, reasons %v, errors %v; want the republished row initialised", sum.Counts, sum.Reasons, sum.Errors)
	}
}
