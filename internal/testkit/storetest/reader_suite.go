package storetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// RunRunReader runs the run reader's contract (the data of `runs list` and
// `runs show`) against an adapter.
func RunRunReader(t *testing.T, newFixture Factory) {
	tests := map[string]func(*testing.T, Fixture){
		"GetReturnsTheAdmittedRunWithItsAttemptAndEvents":                    testRunGet,
		"GetNamesAMissingOrMalformedID":                                      testRunGetErrors,
		"ListPagesNewestFirstWithEveryFilter":                                testRunList,
		"ListRejectsBadFiltersNamingThem":                                    testRunListErrors,
		"RunsCarryTheNamesTheyFiredUnder":                                    testRunNames,
		"ARunNamesTheTaskThatRan":                                            testRunTaskName,
		"RunsSayWhetherTheClockOrARequestAdmittedThem":                       testRunOrigins,
		"ACancelRecordsWhoAskedInItsEvent":                                   testCancelActor,
		"ACancelOfAnEndedRunReturnsItAsItIs":                                 testCancelOfAnEndedRunReturnsItAsItIs,
		"ACancelOfALostRunClosesItCancelled":                                 testCancelOfALostRunClosesItCancelled,
		"ACancelAskedBeforeTheCommandsOwnEndWins":                            testCancelAskedBeforeTheCommandsOwnEndWins,
		"ACancelAskedAfterTheDeadlinePassedLeavesTheRunTimedOut":             testCancelAskedAfterTheDeadlinePassedLeavesTheRunTimedOut,
		"TheNewestRunOfEachTriggerIsTheOneAdmittedLast":                      testRunsLast,
		"TheNewestRunCarriesTheQueuedRunsAndThoseCancelledBeforeTheyStarted": testRunsLastOverlapFacts,
		"ARerunIsListedAtItsAdmissionNotAtTheOccurrenceItRepeats":            testARerunIsListedAtItsAdmission,
		"ABackfillsRunIsListedAtItsAdmissionMarkedABackfill":                 testABackfillsRunIsListedAtItsAdmission,
		"ListKeepsATimeWindowByAdmissionAndPagesWithinIt":                    testRunListWindow,
		"AFailedTimedOutOrLostRunIsReadWithHowItEnded":                       testEndedRunErrorCode,
		"AStateListingReturnsExactlyTheRunsInTheState":                       testRunListByState,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, newFixture(t))
		})
	}
}

// RunStatusReader runs the status reader's contract (the data of
// `triggers list`) against an adapter.
func RunStatusReader(t *testing.T, newFixture Factory) {
	tests := map[string]func(*testing.T, Fixture){
		"TriggerListPagesByIDWithScheduleState":                      testTriggerList,
		"TriggerListRejectsBadFiltersNamingThem":                     testTriggerListErrors,
		"TriggerListRefusesABadCursorAndALongSearchWithTheirReasons": testTriggerListReasons,
		"TriggerListCarriesTimePoliciesAndDueTimes":                  testTriggerListPolicies,
		"AnArchivedProjectsTriggersAreListedArchivedWithNoNextFire":  testTriggerListArchived,
		"ASearchFindsEveryMatchingTriggerAcrossPages":                testASearchFindsEveryMatchingTrigger,
		"SearchFindsATaskByItsScript":                                testSearchFindsATaskByItsScript,
		"ABoundSearchNeverFindsAnotherProjectsScript":                testABoundSearchNeverFindsAnotherProjectsScript,
		"ATitlesOnlySearchMatchesTriggerTitlesAlone":                 testATitlesOnlySearchMatchesTriggerTitlesAlone,
		"ATriggerCountIsHowManyTheListingWalksTo":                    testATriggerCountIsHowManyTheListingWalksTo,
		"ATriggersPageAndItsCountReadOneSnapshot":                    testATriggersPageAndItsCountReadOneSnapshot,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, newFixture(t))
		})
	}
}

// admitNow makes a trigger due lateMs ago and admits it, returning the
// Run's id. Every other trigger must be initialised already.
func admitNow(t testing.TB, f Fixture, triggerID string, lateMs int64) string {
	t.Helper()
	makeDue(t, f, triggerID, lateMs)
	tk := takeOne(t, f)
	res := commit(t, f, commitParams(t, tk))
	if tk.TriggerID != triggerID || res.Outcome != schedule.Admitted {
		t.Fatalf("admission of %s: ticket of %s, %s (%s)", triggerID, tk.TriggerID, res.Outcome, res.Reason)
	}
	return res.RunID
}

func testRunGet(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	id := admitNow(t, f, d.Trigger.TriggerID, 1_000)
	got, err := f.Runs.RunGet(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	r := got.Run
	if r.ID != id || r.ProjectID != d.Project.ID || r.TaskID != d.Task.TaskID || r.TaskRevision != 1 || r.TriggerID != d.Trigger.TriggerID ||
		r.TriggerRevision != 1 || r.State != run.Queued || r.Version != 2 || r.LastEventSeq != 2 || r.FinishedAtMs != nil ||
		r.IdempotencyKey != schedule.IdempotencyKey(d.Trigger.TriggerID, 1, r.ScheduledForMs) || r.ExecutionRevisionID == "" ||
		r.QueuedAtMs != r.CreatedAtMs {
		t.Fatalf("run %+v; want the queued run of trigger %s at version 2", r, d.Trigger.TriggerID)
	}
	if len(got.Attempts) != 1 || got.Attempts[0].Number != 1 || got.Attempts[0].RunID != id || got.Attempts[0].State != run.AttemptClaimed ||
		got.Attempts[0].Executor != string(f.Schedule.Executor()) || got.Attempts[0].StartedAtMs != nil {
		t.Fatalf("attempts %+v; want attempt 1 claimed for %s", got.Attempts, f.Schedule.Executor())
	}
	if len(got.Events) != 2 || got.Events[0].Seq != 1 || got.Events[0].Name != run.EventCreated ||
		got.Events[1].Seq != 2 || got.Events[1].Name != run.EventQueued {
		t.Fatalf("events %+v; want run.created, run.queued", got.Events)
	}
}

func testRunGetErrors(t *testing.T, f Fixture) {
	_, err := f.Runs.RunGet(t.Context(), ids.New())
	requireCode(t, err, qlerror.NotFound, "unknown run")
	_, err = f.Runs.RunGet(t.Context(), "42; DROP TABLE runs")
	requireCode(t, err, qlerror.Invalid, "malformed run id")
}

func testRunList(t *testing.T, f Fixture) {
	a, b := newDefs(t, f, "alpha", quietCron(t, f)), newDefs(t, f, "beta", quietCron(t, f))
	initialise(t, f)
	var all []string
	for i, tg := range []string{a.Trigger.TriggerID, b.Trigger.TriggerID, a.Trigger.TriggerID, a.Trigger.TriggerID, b.Trigger.TriggerID} {
		// Older lateness each time, so no two admissions share an
		// occurrence.
		all = append(all, admitNow(t, f, tg, int64(10_000-i*1_000)))
	}
	slices.Sort(all)
	slices.Reverse(all)
	var paged []string
	p := run.ListParams{Limit: 2}
	for pages := 1; ; pages++ {
		list, next, err := f.Runs.RunList(t.Context(), p)
		if err != nil || len(list) > 2 || pages > 3 {
			t.Fatalf("page %d: %d runs, %v", pages, len(list), err)
		}
		for _, r := range list {
			paged = append(paged, r.ID)
		}
		if next == "" {
			break
		}
		if next != list[len(list)-1].ID {
			t.Fatalf("page %d ends at %s but the next cursor is %s", pages, list[len(list)-1].ID, next)
		}
		p.After = next
	}
	if !slices.Equal(paged, all) {
		t.Fatalf("paged %v, want every run newest first by id %v", paged, all)
	}
	for _, c := range []struct {
		name string
		p    run.ListParams
		want int
	}{
		{"project", run.ListParams{ProjectID: a.Project.ID}, 3},
		{"trigger", run.ListParams{TriggerID: b.Trigger.TriggerID}, 2},
		{"state", run.ListParams{State: run.Queued}, 5},
		{"no run in the state", run.ListParams{State: run.Succeeded}, 0},
		{"project and state", run.ListParams{ProjectID: b.Project.ID, State: run.Queued}, 2},
		{"project of another trigger", run.ListParams{ProjectID: a.Project.ID, TriggerID: b.Trigger.TriggerID}, 0},
	} {
		list, next, err := f.Runs.RunList(t.Context(), c.p)
		if err != nil || len(list) != c.want || next != "" {
			t.Errorf("%s: %d runs (next %q, err %v), want %d", c.name, len(list), next, err, c.want)
		}
	}
}

// testRunListErrors: a bad listing is refused as invalid, and a value that
// is not an id says which command prints the one wanted.
func testRunListErrors(t *testing.T, f Fixture) {
	for _, c := range []struct {
		p      run.ListParams
		says   string
		reason qlerror.Reason
	}{
		{run.ListParams{Limit: run.MaxPageSize + 1}, "", ""},
		{run.ListParams{Limit: -1}, "", ""},
		{run.ListParams{ProjectID: "demo"}, "give the project as a project id, as `ql triggers list -o json` prints it", run.RefusalListNotAnID},
		{run.ListParams{TriggerID: "x"}, "give the trigger as a trigger id, as `ql triggers list -o json` prints it", run.RefusalListNotAnID},
		{run.ListParams{After: "1"}, "give the page cursor (after) as the id of the last run of the previous page, as `ql runs list` prints it", run.RefusalListNotAnID},
		{run.ListParams{State: "sleeping"}, `state "sleeping" is not a run state; use one of created, queued,`, run.RefusalListState},
		// Kept for approvals that nothing enters: refused as the command
		// line and the console refuse it, and not offered among the rest.
		{run.ListParams{State: run.WaitingApproval}, "no Run of this release is ever waiting_approval (the state is kept for approvals, which nothing enters yet); use one of created, queued, dispatching, running, retry_wait, succeeded, failed, cancelled, timed_out, lost", run.RefusalListState},
		{run.ListParams{FromMs: 2_000, ToMs: 1_000}, "give from before to", run.RefusalListReversed},
		{run.ListParams{FromMs: -1}, "between 1970 and the year 10889", run.RefusalListOutOfRange},
	} {
		_, _, err := f.Runs.RunList(t.Context(), c.p)
		requireCode(t, err, qlerror.Invalid, fmt.Sprintf("run listing %+v", c.p))
		if c.says != "" && !strings.Contains(err.Error(), c.says) {
			t.Errorf("run listing %+v: %v; want it to say %q", c.p, err, c.says)
		}
		// The reason lets the console say it in the page's language.
		if c.reason != "" && qlerror.ReasonOf(err) != c.reason {
			t.Errorf("run listing %+v: reason %q, want %q", c.p, qlerror.ReasonOf(err), c.reason)
		}
	}
}

// testRunNames: a Run shows its project's current name and the trigger's
// name at the revision that fired it, not the trigger's name today.
func testRunNames(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	id := admitNow(t, f, d.Trigger.TriggerID, 1_000)
	renamed := d.Trigger.Spec
	renamed.Name = "renamed"
	publishTrigger(t, f, d.Project.ID, d.Trigger.TriggerID, d.Task, d.Trigger.Revision, renamed)
	list, _, err := f.Runs.RunList(t.Context(), run.ListParams{})
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	got, err := f.Runs.RunGet(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []run.Run{list[0], got.Run} {
		if r.ProjectName != "alpha" || r.TriggerName != d.Trigger.Spec.Name {
			t.Fatalf("run %s named %q/%q, want alpha/%s (the trigger's name at revision %d)", r.ID, r.ProjectName, r.TriggerName, d.Trigger.Spec.Name, r.TriggerRevision)
		}
	}
}

// testRunTaskName: a Run read by id or in a listing names the task it ran
// (its name at the Run's task revision), for `ql runs show` and the API:
// the task's id alone says nothing to a person.
func testRunTaskName(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	id := admitNow(t, f, d.Trigger.TriggerID, 1_000)
	list, _, err := f.Runs.RunList(t.Context(), run.ListParams{})
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	got, err := f.Runs.RunGet(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []run.Run{list[0], got.Run} {
		if r.TaskName == "" || r.TaskName != d.Task.Spec.Name {
			t.Fatalf("run %s names task %q, want %q (task %s revision %d)", r.ID, r.TaskName, d.Task.Spec.Name, r.TaskID, r.TaskRevision)
		}
	}
}

// testRunOrigins: a Run read by id or in a listing says what admitted it —
// the clock, run now, a re-run or a backfill — so that what measures the
// clock's admissions (the console's admission lag) can leave the others
// out, as the admission lag metric does.
func testRunOrigins(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	d := newDefs(t, f, "alpha", c)
	id := d.Trigger.TriggerID
	initialise(t, f)
	clock := admitNow(t, f, id, 1_000)
	now := nowOf(t, f)
	want := map[string]run.Origin{clock: run.OriginClock}
	want[runNow(t, f, schedule.RunNowRequest{TriggerID: id, Force: true}).RunID] = run.OriginRunNow
	past := cronTimes(t, c, now-3*60*60_000, now-2*60*60_000)
	filled := backfill(t, f, schedule.BackfillRequest{TriggerID: id, FromMs: past[0], ToMs: past[len(past)-1]})
	if len(filled.RunIDs) != len(past) {
		t.Fatalf("backfill %+v, want a Run for each of %v", filled, past)
	}
	for _, r := range filled.RunIDs {
		want[r] = run.OriginBackfill
	}
	if _, err := f.Finish(t.Context(), clock, run.AttemptFailed); err != nil {
		t.Fatalf("finish the clock's Run: %v", err)
	}
	want[rerun(t, f, schedule.RerunRequest{RunID: clock}).RunID] = run.OriginRerun
	list := runsOf(t, f, id)
	if len(list) != len(want) {
		t.Fatalf("%d runs listed, want %d", len(list), len(want))
	}
	for _, r := range list {
		if r.Origin != want[r.ID] {
			t.Errorf("run %s listed as admitted by %q, want %q", r.ID, r.Origin, want[r.ID])
		}
		if got := runByID(t, f, r.ID); got.Origin != want[r.ID] {
			t.Errorf("run %s read as admitted by %q, want %q", r.ID, got.Origin, want[r.ID])
		}
	}
}

func testTriggerList(t *testing.T, f Fixture) {
	a, b := newDefs(t, f, "alpha", quietCron(t, f)), newDefs(t, f, "beta", quietCron(t, f))
	fresh := map[string]schedule.TriggerStatus{}
	all, next, err := f.Status.TriggerList(t.Context(), schedule.TriggerListParams{})
	if err != nil || len(all) != 2 || next != "" {
		t.Fatalf("all triggers: %d, next %q, %v", len(all), next, err)
	}
	for _, s := range all {
		fresh[s.TriggerID] = s
	}
	if s := fresh[b.Trigger.TriggerID]; s.NextFireAtMs != nil || s.LastScheduledAtMs != nil || s.ClaimOwner != nil {
		t.Fatalf("fresh trigger %+v; want no cursor, nothing scheduled, no claim", s)
	}
	initialise(t, f)
	admitNow(t, f, a.Trigger.TriggerID, 1_000)
	makeDue(t, f, b.Trigger.TriggerID, 1_000)
	held := takeOne(t, f)

	first, next, err := f.Status.TriggerList(t.Context(), schedule.TriggerListParams{Limit: 1})
	if err != nil || len(first) != 1 || next != first[0].TriggerID {
		t.Fatalf("page of 1: %+v, next %q, %v", first, next, err)
	}
	second, last, err := f.Status.TriggerList(t.Context(), schedule.TriggerListParams{Limit: 1, After: next})
	if err != nil || len(second) != 1 || last != "" || second[0].TriggerID <= first[0].TriggerID {
		t.Fatalf("page after %s: %+v, next %q, %v; want the other trigger and no next page", next, second, last, err)
	}
	byID := map[string]schedule.TriggerStatus{first[0].TriggerID: first[0], second[0].TriggerID: second[0]}
	sa, sb := byID[a.Trigger.TriggerID], byID[b.Trigger.TriggerID]
	if sa.ProjectID != a.Project.ID || sa.ProjectName != "alpha" || sa.Name != a.Trigger.Spec.Name || sa.Revision != 1 || !sa.Enabled ||
		sa.Cron != a.Trigger.Spec.Cron || sa.TaskID != a.Task.TaskID || sa.TaskName != "job" || sa.TaskRevision != 1 ||
		sa.NextFireAtMs == nil || sa.LastScheduledAtMs == nil || sa.ClaimOwner != nil {
		t.Fatalf("admitted trigger %+v; want alpha/job revision 1, enabled, a cursor, a last scheduled time and no claim", sa)
	}
	if held.TriggerID != b.Trigger.TriggerID || (sb.ClaimOwner != nil) != (held.Lease != nil) ||
		(held.Lease != nil && (*sb.ClaimOwner != held.Lease.Owner || sb.ClaimExpiresAtMs == nil)) || sb.StateVersion != held.StateVersion {
		t.Fatalf("taken trigger %+v; want its claim exactly when the take holds one (%+v) and state version %d", sb, held.Lease, held.StateVersion)
	}
	only, _, err := f.Status.TriggerList(t.Context(), schedule.TriggerListParams{ProjectID: b.Project.ID})
	if err != nil || len(only) != 1 || only[0].TriggerID != b.Trigger.TriggerID {
		t.Fatalf("project filter: %+v, %v", only, err)
	}
}

func testTriggerListErrors(t *testing.T, f Fixture) {
	for _, p := range []schedule.TriggerListParams{
		{Limit: -1},
		{Limit: run.MaxPageSize + 1},
		{ProjectID: "demo"},
		{After: "1"},
		{Search: strings.Repeat("x", schedule.MaxSearch+1)},
	} {
		_, _, err := f.Status.TriggerList(t.Context(), p)
		requireCode(t, err, qlerror.Invalid, fmt.Sprintf("trigger listing %+v", p))
	}
}

// A page cursor that is no id and a search over MaxSearch bytes are
// refused with the reasons the console says in the page's language, on
// every store alike.
func testTriggerListReasons(t *testing.T, f Fixture) {
	for p, want := range map[*schedule.TriggerListParams]qlerror.Reason{
		{Limit: 10, After: "not-an-id"}:                                run.RefusalListNotAnID,
		{Limit: 10, Search: strings.Repeat("x", schedule.MaxSearch+1)}: schedule.RefusalSearchTooLong,
	} {
		_, _, err := f.Status.TriggerList(t.Context(), *p)
		if !qlerror.Is(err, qlerror.Invalid) || qlerror.ReasonOf(err) != want {
			t.Errorf("trigger listing %+v: %v (reason %q); want invalid, reason %q", *p, err, qlerror.ReasonOf(err), want)
		}
	}
}

// A cancel's event is its audit record: who asked (and from where) is in
// its payload, written in the cancel's transaction.
func testCancelActor(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	id := admitNow(t, f, d.Trigger.TriggerID, 1_000)
	r, _, err := f.Cancel(t.Context(), id, "api:ops@192.0.2.7")
	if err != nil || r.State != run.Cancelled {
		t.Fatalf("cancel: %+v %v", r, err)
	}
	got, err := f.Runs.RunGet(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	last := got.Events[len(got.Events)-1]
	var payload map[string]any
	if err := json.Unmarshal([]byte(last.Payload), &payload); err != nil || last.Name != run.EventCancelled || payload["actor"] != "api:ops@192.0.2.7" {
		t.Fatalf("last event %+v (%v); want run.cancelled naming its actor", last, err)
	}
}
