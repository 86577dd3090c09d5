package storetest

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// monitor reads the fixture's monitoring snapshot with limit.
func monitor(t *testing.T, f Fixture, limit int) schedule.MonitorSnapshot {
	t.Helper()
	snap, err := f.Monitor.Monitor(t.Context(), limit)
	if err != nil {
		t.Fatalf("monitor: %v", err)
	}
	return snap
}

// testMonitorCounts: the backlog counts the due rows a take would return
// (not a row that is not due yet, nor one of an archived project), up to
// the limit, with the oldest due time among them; the unfinished Runs are
// counted per state, with the time the longest-waiting queued one was
// queued; a limit outside its range is refused.
func testMonitorCounts(t *testing.T, f Fixture) {
	var all []defs
	for _, name := range []string{"early", "late", "quiet", "archived"} {
		all = append(all, newDefs(t, f, name, quietCron(t, f)))
	}
	initialise(t, f)
	makeDue(t, f, all[0].Trigger.TriggerID, 5_000)
	makeDue(t, f, all[1].Trigger.TriggerID, 10_000)
	makeDue(t, f, all[3].Trigger.TriggerID, 20_000)
	archived := all[3].Project
	archived.Status = project.Archived
	if _, err := f.Catalog.ProjectSave(t.Context(), archived); err != nil {
		t.Fatal(err)
	}
	oldest := row(t, f, all[1].Trigger.TriggerID).DueAtMs
	snap := monitor(t, f, schedule.MonitorLimit)
	if snap.Due != 2 || snap.OldestDueAtMs == nil || oldest == nil || *snap.OldestDueAtMs != *oldest {
		t.Fatalf("backlog: %d due, oldest %v; want 2 due, the oldest at %v", snap.Due, snap.OldestDueAtMs, oldest)
	}
	if snap.NowMs < *oldest+10_000 {
		t.Fatalf("monitor clock %d is before the oldest due row was 10 s late (%d)", snap.NowMs, *oldest+10_000)
	}
	if n := snap.Runs[run.Queued]; n != 0 || snap.OldestQueuedAtMs != nil {
		t.Fatalf("%d queued Runs, the oldest queued at %v, before any admission; want none", n, snap.OldestQueuedAtMs)
	}
	if limited := monitor(t, f, 1); limited.Due != 1 || *limited.OldestDueAtMs != *oldest {
		t.Fatalf("backlog with limit 1: %d due, oldest %v; want 1, the oldest at %d", limited.Due, limited.OldestDueAtMs, *oldest)
	}
	tks := take(t, f, schedule.MaxPageSize)
	if len(tks) != 2 {
		t.Fatalf("took %d rows, want the 2 due ones", len(tks))
	}
	var firstQueuedAt int64
	for i, tk := range tks {
		p := commitParams(t, tk)
		if res := commit(t, f, p); res.Outcome != schedule.Admitted {
			t.Fatalf("commit of %s: %s (%s), want admitted", tk.TriggerID, res.Outcome, res.Reason)
		}
		if at := runDetail(t, f, p.RunID).Run.QueuedAtMs; i == 0 || at < firstQueuedAt {
			firstQueuedAt = at
		}
	}
	snap = monitor(t, f, schedule.MonitorLimit)
	if snap.OldestQueuedAtMs == nil || *snap.OldestQueuedAtMs != firstQueuedAt || snap.NowMs < firstQueuedAt {
		t.Fatalf("oldest queued at %v (now %d); want %d, the earlier of the two Runs' queue times", snap.OldestQueuedAtMs, snap.NowMs, firstQueuedAt)
	}
	if snap.Due != 0 || snap.OldestDueAtMs != nil {
		t.Fatalf("backlog after admitting both: %d due, oldest %v; want none", snap.Due, snap.OldestDueAtMs)
	}
	for _, st := range schedule.UnfinishedStates {
		want := 0
		if st == run.Queued {
			want = 2
		}
		if snap.Runs[st] != want {
			t.Errorf("%s Runs: %d, want %d", st, snap.Runs[st], want)
		}
	}
	if limited := monitor(t, f, 1); limited.Runs[run.Queued] != 1 {
		t.Fatalf("queued Runs with limit 1: %d, want 1", limited.Runs[run.Queued])
	}
	for _, bad := range []int{0, schedule.MonitorLimit + 1} {
		if _, err := f.Monitor.Monitor(t.Context(), bad); err == nil {
			t.Errorf("monitor limit %d was accepted", bad)
		}
	}
}

// testTheOldestQueuedAgeLeavesBackfillsOut: a backfill's Runs, dispatched
// after every other, are left out of when the longest-waiting queued Run
// was queued, and read apart: a clock Run queued after them is the oldest
// queued, and the backfill's first the oldest backfilled.
func testTheOldestQueuedAgeLeavesBackfillsOut(t *testing.T, f Fixture) {
	history := newDefs(t, f, "history", quietCron(t, f))
	clock := newDefs(t, f, "clock", quietCron(t, f))
	initialise(t, f)
	now := nowOf(t, f)
	res := backfill(t, f, schedule.BackfillRequest{TriggerID: history.Trigger.TriggerID, FromMs: now - 5*60*60_000, ToMs: now - 1, Actor: "ops"})
	if res.Admitted == 0 {
		t.Fatalf("backfill %+v; want Runs admitted", res)
	}
	backfilledAt := runDetail(t, f, res.RunIDs[0]).Run.QueuedAtMs
	// The clock Run is queued after the backfill's on the store's clock,
	// so the two ages differ.
	f.Elapse(10 * time.Millisecond)
	makeDue(t, f, clock.Trigger.TriggerID, 1_000)
	p := commitParams(t, takeOne(t, f))
	if r := commit(t, f, p); r.Outcome != schedule.Admitted {
		t.Fatalf("commit: %s (%s), want admitted", r.Outcome, r.Reason)
	}
	clockAt := runDetail(t, f, p.RunID).Run.QueuedAtMs
	snap := monitor(t, f, schedule.MonitorLimit)
	if snap.OldestQueuedAtMs == nil || *snap.OldestQueuedAtMs != clockAt {
		t.Fatalf("oldest queued at %v; want %d, the clock Run's, not the backfill's at %d", snap.OldestQueuedAtMs, clockAt, backfilledAt)
	}
	if snap.OldestBackfillQueuedAtMs == nil || *snap.OldestBackfillQueuedAtMs != backfilledAt {
		t.Fatalf("oldest backfilled queued at %v; want %d", snap.OldestBackfillQueuedAtMs, backfilledAt)
	}
}

// testBoundBacklog: the backlog of some projects counts their due rows
// alone, up to the limit, with the oldest due time among them, however
// many due rows of other projects come first; read of no project it is
// every project's, as the monitor counts it.
func testBoundBacklog(t *testing.T, f Fixture) {
	br, ok := f.Monitor.(schedule.BacklogReader)
	if !ok {
		t.Fatalf("the store's monitor %T reads no backlog of some projects", f.Monitor)
	}
	var all []defs
	for _, name := range []string{"other-a", "other-b", "own", "own-too"} {
		all = append(all, newDefs(t, f, name, quietCron(t, f)))
	}
	initialise(t, f)
	makeDue(t, f, all[0].Trigger.TriggerID, 30_000)
	makeDue(t, f, all[1].Trigger.TriggerID, 20_000)
	makeDue(t, f, all[2].Trigger.TriggerID, 10_000)
	makeDue(t, f, all[3].Trigger.TriggerID, 5_000)
	backlog := func(limit int, in ...string) schedule.Backlog {
		t.Helper()
		b, err := br.Backlog(t.Context(), limit, in)
		if err != nil {
			t.Fatalf("backlog of %v: %v", in, err)
		}
		return b
	}
	oldest := row(t, f, all[2].Trigger.TriggerID).DueAtMs
	if b := backlog(10, "own", "own-too", "gone"); b.Due != 2 || b.OldestDueAtMs == nil || oldest == nil || *b.OldestDueAtMs != *oldest {
		t.Fatalf("backlog of own and own-too: %d due, oldest %v; want 2, the oldest at %v", b.Due, b.OldestDueAtMs, oldest)
	}
	if b := backlog(1, "own", "own-too"); b.Due != 1 || *b.OldestDueAtMs != *oldest {
		t.Fatalf("backlog of own and own-too with limit 1: %d due, oldest %v; want 1, own's at %d", b.Due, b.OldestDueAtMs, *oldest)
	}
	if b := backlog(10, "gone"); b.Due != 0 || b.OldestDueAtMs != nil {
		t.Fatalf("backlog of a project with none due: %d, oldest %v; want none", b.Due, b.OldestDueAtMs)
	}
	if b, snap := backlog(10), monitor(t, f, 10); b.Due != 4 || snap.Due != 4 || *b.OldestDueAtMs != *snap.OldestDueAtMs {
		t.Fatalf("backlog of every project: %d due, oldest %v; want the monitor's %d, oldest %v", b.Due, b.OldestDueAtMs, snap.Due, snap.OldestDueAtMs)
	}
	for _, bad := range []int{0, schedule.MonitorLimit + 1} {
		if _, err := br.Backlog(t.Context(), bad, []string{"own"}); err == nil {
			t.Errorf("backlog limit %d was accepted", bad)
		}
	}
}
