package storetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// RunSchedule runs the schedule contract's guarantees against an adapter.
// Every case that commits runs twice: as named, each decision through
// ScheduleCommit, and as Page/<name>, each through ScheduleCommitPage; the
// cases about pages themselves run only as Page/<name>.
func RunSchedule(t *testing.T, newFixture Factory) {
	takes := map[string]func(*testing.T, Fixture){
		"ArchivedProjectIsNotTaken":                 testArchivedNotTaken,
		"DisabledTriggerIsNotTaken":                 testDisabledNotTaken,
		"TaskRepublishedWithoutRepinIsNotTaken":     testUnpinnedNotTaken,
		"TakeLimitIsBounded":                        testTakeLimit,
		"MonitorCountsDueRowsAndUnfinishedRuns":     testMonitorCounts,
		"ABoundBacklogCountsItsProjectsDueRowsOnly": testBoundBacklog,
		"TheOldestQueuedAgeLeavesBackfillsOut":      testTheOldestQueuedAgeLeavesBackfillsOut,
		"MonitorReadsEachTriggersLastSuccess":       testTriggerActivity,
		"MonitorReadsWhetherATriggerIsPaused":       testTriggerActivityPaused,
	}
	commits := map[string]func(*testing.T, Fixture){
		"TakeOrdersUninitialisedFirstThenCursorProjectTrigger": testTakeOrder,
		"NotYetDueRowsAreNotTaken":                             testNotDueUntouched,
		"InitializeStoresTheCursorAndWritesNoRun":              testInitialize,
		"AdmitWritesOneRunOneAttemptTwoEvents":                 testAdmitCounts,
		"SkipAdvancesTheCursorWithoutARun":                     testSkip,
		"FireOnceAdmitsOnlyTheOldestOccurrence":                testFireOnce,
		"AStaleTicketIsRacedAndWritesNothing":                  testStaleTicketRaced,
		"RepublishedTriggerRacesTheOldTicket":                  testRepublishRacesTicket,
		"TwoTakersNeverBothHoldTheSameRow":                     testTakersExclusive,
		"ConcurrentRoundsAdmitEachOccurrenceOnce":              testConcurrentRoundsOnce,
		"ReplayedOccurrenceFailsOnItsIdempotencyKey":           testReplayedOccurrence,
		"CommitRefused/schedule_missing":                       testScheduleMissing,
	}
	for name, fn := range reasonCases() {
		commits[name] = fn
	}
	for name, fn := range ledgerCases() {
		commits[name] = fn
	}
	for name, fn := range projectPauseCases() {
		commits[name] = fn
	}
	for name, fn := range policyCases() {
		commits[name] = fn
	}
	for name, fn := range overlapCases() {
		commits[name] = fn
	}
	for name, fn := range placeCases() {
		commits[name] = fn
	}
	for name, fn := range clockBackCommits() {
		commits[name] = fn
	}
	for name, fn := range clockBackTakes() {
		takes[name] = fn
	}
	for name, fn := range adoptCases() {
		takes[name] = fn
	}
	run := func(name string, page bool, fn func(*testing.T, Fixture)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.page = page
			fn(t, f)
		})
	}
	for name, fn := range takes {
		run(name, false, fn)
	}
	for name, fn := range commits {
		run(name, false, fn)
		run("Page/"+name, true, fn)
	}
	for name, fn := range pageCases() {
		run("Page/"+name, true, fn)
	}
	run("Page/OneRacedRowOfAPageRecordsNoLedgerEntryAndTheOthersDo", true, testPageRacedRowRecordsNothing)
	for name, fn := range manualCases() {
		run(name, false, fn)
	}
	for name, fn := range replayCases() {
		run(name, false, fn)
	}
	for name, fn := range backfillPreviewCases() {
		run(name, false, fn)
	}
	for name, fn := range republishCases() {
		run(name, false, fn)
	}
	for name, fn := range archiveCases() {
		run(name, false, fn)
	}
	for name, fn := range titleCases() {
		run("Titles/"+name, false, fn)
	}
	for name, fn := range maxRunningCases() {
		run("MaxRunning/"+name, false, fn)
	}
	for name, fn := range projectEnvCases() {
		run("ProjectEnv/"+name, false, fn)
	}
	for name, fn := range unreadableCases() {
		run(name, false, fn)
	}
	for name, fn := range rowFaultCases() {
		run(name, false, fn)
	}
}

func testTakeOrder(t *testing.T, f Fixture) {
	// Three projects' triggers: two made due at different lateness, one
	// left uninitialised; plus a second due trigger sharing a cursor.
	var all []defs
	for i := range 4 {
		all = append(all, newDefs(t, f, fmt.Sprintf("p%d", i), quietCron(t, f)))
	}
	initialise(t, f)
	publishTrigger(t, f, all[3].Project.ID, all[3].Trigger.TriggerID, all[3].Task, 1, all[3].Trigger.Spec) // back to NULL
	makeDue(t, f, all[0].Trigger.TriggerID, 5_000)
	makeDue(t, f, all[1].Trigger.TriggerID, 10_000)
	makeDue(t, f, all[2].Trigger.TriggerID, 5_000)
	tks := take(t, f, schedule.MaxPageSize)
	if len(tks) != 4 {
		t.Fatalf("took %d rows, want 4", len(tks))
	}
	if tks[0].NextFireAtMs != nil || tks[0].TriggerID != all[3].Trigger.TriggerID {
		t.Fatalf("first ticket %s (cursor %v); want the uninitialised trigger first", tks[0].TriggerID, tks[0].NextFireAtMs)
	}
	if tks[1].TriggerID != all[1].Trigger.TriggerID {
		t.Fatalf("second ticket %s; want the oldest cursor", tks[1].TriggerID)
	}
	for i := 2; i < 4; i++ {
		if tks[i].NextFireAtMs == nil || *tks[i].NextFireAtMs < *tks[i-1].NextFireAtMs {
			t.Fatalf("ticket %d out of cursor order", i)
		}
	}
	if *tks[2].NextFireAtMs == *tks[3].NextFireAtMs && !(tks[2].ProjectID < tks[3].ProjectID ||
		tks[2].ProjectID == tks[3].ProjectID && tks[2].TriggerID < tks[3].TriggerID) {
		t.Fatalf("equal cursors not ordered by project, trigger: %s/%s before %s/%s", tks[2].ProjectID, tks[2].TriggerID, tks[3].ProjectID, tks[3].TriggerID)
	}
}

func testNotDueUntouched(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	before := row(t, f, d.Trigger.TriggerID)
	if tks := take(t, f, schedule.MaxPageSize); len(tks) != 0 {
		t.Fatalf("took %d rows whose cursor is in the future", len(tks))
	}
	if after := row(t, f, d.Trigger.TriggerID); after.StateVersion != before.StateVersion || after.ClaimOwner != nil {
		t.Fatalf("a take changed a row that is not due: %+v -> %+v", before, after)
	}
}

func testInitialize(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	tk := takeOne(t, f)
	p := commitParams(t, tk)
	if p.Decision.Action != schedule.Initialize {
		t.Fatalf("first decision %s, want initialize", p.Decision.Action)
	}
	if res := commit(t, f, p); res.Outcome != schedule.Initialized {
		t.Fatalf("commit: %s (%s)", res.Outcome, res.Reason)
	}
	r := row(t, f, d.Trigger.TriggerID)
	if r.NextFireAtMs == nil || *r.NextFireAtMs != p.Decision.NextFireAtMs || r.LastScheduledAtMs != nil || r.ClaimOwner != nil {
		t.Fatalf("row after initialize %+v; want cursor %d, no last scheduled, no claim", r, p.Decision.NextFireAtMs)
	}
	if c := counts(t, f, d.Trigger.TriggerID); c != (Counts{}) {
		t.Fatalf("initialize wrote %+v", c)
	}
}

func testAdmitCounts(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	makeDue(t, f, d.Trigger.TriggerID, 1_000)
	tk := takeOne(t, f)
	p := commitParams(t, tk)
	if p.Decision.Action != schedule.Admit {
		t.Fatalf("decision %s, want admit", p.Decision.Action)
	}
	res := commit(t, f, p)
	if res.Outcome != schedule.Admitted || res.RunID != p.RunID {
		t.Fatalf("commit: %s (%s) run %s; want admitted run %s", res.Outcome, res.Reason, res.RunID, p.RunID)
	}
	requireAdmittedAt(t, f, res)
	if c := counts(t, f, d.Trigger.TriggerID); c != (Counts{Runs: 1, Attempts: 1, Events: 2}) {
		t.Fatalf("admit wrote %+v, want 1 run, 1 attempt, 2 events", c)
	}
	r := row(t, f, d.Trigger.TriggerID)
	if r.NextFireAtMs == nil || *r.NextFireAtMs != p.Decision.NextFireAtMs || r.LastScheduledAtMs == nil ||
		*r.LastScheduledAtMs != p.Decision.ScheduledForMs || r.ClaimOwner != nil {
		t.Fatalf("row after admit %+v; want cursor %d, last scheduled %d, claim cleared", r, p.Decision.NextFireAtMs, p.Decision.ScheduledForMs)
	}
}

func testSkip(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	c.MisfirePolicy = trigger.Skip
	d := newDefs(t, f, "alpha", c)
	initialise(t, f)
	makeDue(t, f, d.Trigger.TriggerID, 10*graceMs)
	tk := takeOne(t, f)
	p := commitParams(t, tk)
	if p.Decision.Action != schedule.SkipLate {
		t.Fatalf("decision %s, want skip", p.Decision.Action)
	}
	if res := commit(t, f, p); res.Outcome != schedule.Skipped {
		t.Fatalf("commit: %s (%s), want skipped", res.Outcome, res.Reason)
	}
	r := row(t, f, d.Trigger.TriggerID)
	if r.NextFireAtMs == nil || *r.NextFireAtMs <= tk.ObservedAtMs || r.LastScheduledAtMs != nil {
		t.Fatalf("row after skip %+v; want a cursor after %d and no last scheduled", r, tk.ObservedAtMs)
	}
	if got := counts(t, f, d.Trigger.TriggerID); got != (Counts{}) {
		t.Fatalf("skip wrote %+v", got)
	}
}

func testFireOnce(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	const backlogMs = 24 * 60 * 60_000 // a day of missed hours
	makeDue(t, f, d.Trigger.TriggerID, backlogMs)
	tk := takeOne(t, f)
	p := commitParams(t, tk)
	if res := commit(t, f, p); res.Outcome != schedule.Admitted {
		t.Fatalf("commit: %s (%s)", res.Outcome, res.Reason)
	}
	if p.Decision.ScheduledForMs != *tk.NextFireAtMs {
		t.Fatalf("admitted %d, want the oldest missed occurrence %d", p.Decision.ScheduledForMs, *tk.NextFireAtMs)
	}
	if tks := take(t, f, schedule.MaxPageSize); len(tks) != 0 {
		t.Fatalf("the backlog was replayed: %d more tickets", len(tks))
	}
	if c := counts(t, f, d.Trigger.TriggerID); c.Runs != 1 {
		t.Fatalf("%d runs after a day's backlog with fire_once, want 1", c.Runs)
	}
}

func testStaleTicketRaced(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	makeDue(t, f, d.Trigger.TriggerID, 1_000)
	tk := takeOne(t, f)
	p := commitParams(t, tk)
	if res := commit(t, f, p); res.Outcome != schedule.Admitted {
		t.Fatalf("first commit: %s (%s)", res.Outcome, res.Reason)
	}
	before := row(t, f, d.Trigger.TriggerID)
	replay := p
	replay.RunID, replay.AttemptID = ids.New(), ids.New()
	if res := commit(t, f, replay); res.Outcome != schedule.Raced || res.Reason != schedule.ReasonStateVersionChanged {
		t.Fatalf("second commit of the same ticket: %s (%s), want raced (%s)", res.Outcome, res.Reason, schedule.ReasonStateVersionChanged)
	}
	if c := counts(t, f, d.Trigger.TriggerID); c != (Counts{Runs: 1, Attempts: 1, Events: 2}) {
		t.Fatalf("a raced commit wrote: %+v", c)
	}
	if after := row(t, f, d.Trigger.TriggerID); !sameRow(after, before) {
		t.Fatalf("a raced commit changed the row: %+v -> %+v", before, after)
	}
}

func testRepublishRacesTicket(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	makeDue(t, f, d.Trigger.TriggerID, 1_000)
	tk := takeOne(t, f)
	p := commitParams(t, tk)
	spec := d.Trigger.Spec
	spec.Cron.Expression = "*/2 * * * *"
	publishTrigger(t, f, d.Project.ID, d.Trigger.TriggerID, d.Task, 1, spec)
	republished := row(t, f, d.Trigger.TriggerID)
	if res := commit(t, f, p); res.Outcome != schedule.Raced || res.Reason != schedule.ReasonTriggerRevisionChanged {
		t.Fatalf("commit of a ticket taken before the republish: %s (%s), want raced (%s)", res.Outcome, res.Reason, schedule.ReasonTriggerRevisionChanged)
	}
	if c := counts(t, f, d.Trigger.TriggerID); c != (Counts{}) {
		t.Fatalf("raced commit wrote %+v", c)
	}
	if after := row(t, f, d.Trigger.TriggerID); !sameRow(after, republished) || after.TriggerRevision != 2 || after.NextFireAtMs != nil {
		t.Fatalf("row after the raced commit %+v; want the republished row %+v untouched", after, republished)
	}
}

func testArchivedNotTaken(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	p := d.Project
	p.Status = project.Archived
	if _, err := f.Catalog.ProjectSave(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if tks := take(t, f, schedule.MaxPageSize); len(tks) != 0 {
		t.Fatalf("took %d rows of an archived project", len(tks))
	}
}

func testDisabledNotTaken(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	spec := d.Trigger.Spec
	spec.Enabled = false
	publishTrigger(t, f, d.Project.ID, d.Trigger.TriggerID, d.Task, 1, spec)
	if tks := take(t, f, schedule.MaxPageSize); len(tks) != 0 {
		t.Fatalf("took %d rows of a disabled trigger", len(tks))
	}
}

func testUnpinnedNotTaken(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	spec := commandSpec("job", true)
	spec.Command.Args = []string{"changed"}
	publishTask(t, f, d.Project.ID, d.Task.TaskID, 1, spec)
	if tks := take(t, f, schedule.MaxPageSize); len(tks) != 0 {
		t.Fatalf("took %d rows of a trigger pinned to an old task revision", len(tks))
	}
}

// testTakersExclusive: on a store with leases a taken row is held, so
// concurrent takers partition the due rows. Single-node stores have no
// leases (the CAS in the commit is their fence); the next test covers both.
func testTakersExclusive(t *testing.T, f Fixture) {
	const triggers, takers = 24, 4
	for i := range triggers {
		newDefs(t, f, fmt.Sprintf("p%02d", i), quietCron(t, f))
	}
	results := make([][]schedule.Ticket, takers)
	var wg sync.WaitGroup
	for i := range takers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tks, err := f.Schedule.ScheduleTake(t.Context(), schedule.TakeParams{Limit: 4})
			if err != nil {
				t.Errorf("taker %d: %v", i, err)
			}
			results[i] = tks
		}()
	}
	wg.Wait()
	if results[0] != nil && len(results[0]) > 0 && results[0][0].Lease == nil {
		requireOneCommitPerRow(t, f, results)
		return
	}
	seen := map[string]int{}
	for i, tks := range results {
		for _, tk := range tks {
			if prev, dup := seen[tk.TriggerID]; dup {
				t.Fatalf("takers %d and %d both hold trigger %s", prev, i, tk.TriggerID)
			}
			seen[tk.TriggerID] = i
		}
	}
	if len(seen) != takers*4 {
		t.Fatalf("%d takers of 4 got %d rows in total from %d due, want %d", takers, len(seen), triggers, takers*4)
	}
}

// requireOneCommitPerRow is exclusivity for stores without leases: takers
// may read the same rows, but the state_version CAS lets exactly one commit
// per row win and races every other.
func requireOneCommitPerRow(t *testing.T, f Fixture, results [][]schedule.Ticket) {
	t.Helper()
	wins := map[string]int{}
	overlapping := 0
	for _, tks := range results {
		ps := make([]schedule.CommitParams, len(tks))
		for i, tk := range tks {
			if tk.Lease != nil {
				t.Fatalf("store mixes leased and lease-less tickets (trigger %s)", tk.TriggerID)
			}
			if _, seen := wins[tk.TriggerID]; seen {
				overlapping++
			} else {
				wins[tk.TriggerID] = 0
			}
			ps[i] = commitParams(t, tk)
		}
		// On the page path each taker commits its whole page at once.
		rs := make([]schedule.CommitResult, len(ps))
		if f.page {
			rs = commitPage(t, f, ps)
		} else {
			for i, p := range ps {
				var err error
				if rs[i], err = f.Schedule.ScheduleCommit(t.Context(), p); err != nil {
					t.Fatalf("commit of trigger %s: %v", p.Ticket.TriggerID, err)
				}
			}
		}
		for i, res := range rs {
			switch res.Outcome {
			case schedule.Raced:
			case schedule.Initialized, schedule.Admitted:
				wins[ps[i].Ticket.TriggerID]++
			default:
				t.Fatalf("commit of trigger %s: %s (%s)", ps[i].Ticket.TriggerID, res.Outcome, res.Reason)
			}
		}
	}
	if overlapping == 0 {
		t.Fatal("lease-less takers never read the same row, so the CAS was not exercised")
	}
	for id, n := range wins {
		if n != 1 {
			t.Fatalf("trigger %s: %d commits won, want exactly 1", id, n)
		}
	}
}

func testConcurrentRoundsOnce(t *testing.T, f Fixture) {
	const triggers, rounds = 12, 4
	var all []defs
	for i := range triggers {
		all = append(all, newDefs(t, f, fmt.Sprintf("p%02d", i), quietCron(t, f)))
	}
	initialise(t, f)
	for _, d := range all {
		makeDue(t, f, d.Trigger.TriggerID, 1_000)
	}
	cfg := schedule.RoundConfig{PageSize: triggers, GraceMs: graceMs, Parallel: 4, NewIDs: ids.Fill}
	sums := make([]schedule.Summary, rounds)
	var wg sync.WaitGroup
	for i := range rounds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := schedule.Round(t.Context(), f.Schedule, cfg)
			if err != nil {
				t.Errorf("round %d: %v", i, err)
			}
			sums[i] = s
		}()
	}
	wg.Wait()
	admitted := 0
	for _, s := range sums {
		admitted += s.Counts[schedule.Admitted]
		if s.Counts[schedule.Failed] != 0 || s.Counts[schedule.Unavailable] != 0 {
			t.Fatalf("round outcomes %v, errors %v", s.Counts, s.Errors)
		}
	}
	if admitted != triggers {
		t.Fatalf("%d concurrent rounds admitted %d occurrences of %d due triggers, want each exactly once", rounds, admitted, triggers)
	}
	for _, d := range all {
		if c := counts(t, f, d.Trigger.TriggerID); c != (Counts{Runs: 1, Attempts: 1, Events: 2}) {
			t.Fatalf("trigger %s: %+v, want exactly one admission", d.Trigger.Spec.Name, c)
		}
	}
}

func testTakeLimit(t *testing.T, f Fixture) {
	for i := range 3 {
		newDefs(t, f, fmt.Sprintf("p%d", i), quietCron(t, f))
	}
	if tks := take(t, f, 2); len(tks) != 2 {
		t.Fatalf("take with limit 2 returned %d", len(tks))
	}
	for _, bad := range []int{0, schedule.MaxPageSize + 1} {
		if _, err := f.Schedule.ScheduleTake(t.Context(), schedule.TakeParams{Limit: bad}); err == nil {
			t.Fatalf("take with limit %d was accepted", bad)
		}
	}
}
