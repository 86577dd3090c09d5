package storetest

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// archiveCases are the guarantees of reactivating an archived project:
// what fell due on its triggers while it was archived is recorded in the
// reactivation's own transaction as project_archived, the cursors move
// past it and none of it runs late.
func archiveCases() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"AReactivationRecordsWhatFellDueWhileArchivedAndNoneOfItRunsLate":  testReactivationRecordsArchive,
		"ATicketTakenBeforeAnArchiveCannotCommitAfterTheReactivation":      testReactivationRacesTicket,
		"AReactivationRecordsAPausedTriggersPauseAsPausedAndKeepsItPaused": testReactivationPaused,
	}
}

// setStatus saves d's project with status.
func setStatus(t *testing.T, f Fixture, d defs, status project.Status) {
	t.Helper()
	p := d.Project
	p.Status = status
	if _, err := f.Catalog.ProjectSave(t.Context(), p); err != nil {
		t.Fatalf("set project %s %s: %v", p.Name, status, err)
	}
}

func testReactivationRecordsArchive(t *testing.T, f Fixture) {
	c := quietCron(t, f)
	c.MisfirePolicy = trigger.FireOnce
	d := newDefs(t, f, "alpha", c)
	initialise(t, f)
	setStatus(t, f, d, project.Archived)
	// Three hours of occurrences fall due while the project is archived;
	// no round takes its row meanwhile.
	makeDue(t, f, d.Trigger.TriggerID, 3*60*60_000)
	if tks := take(t, f, schedule.MaxPageSize); len(tks) != 0 {
		t.Fatalf("took %d rows of an archived project", len(tks))
	}
	archived := row(t, f, d.Trigger.TriggerID)
	cursor := *archived.NextFireAtMs
	before, err := f.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	setStatus(t, f, d, project.Active)
	after, err := f.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := hourlyAt(quietMinute(c), cursor, before-1)
	requireOnly(t, f, d.Trigger.TriggerID, schedule.PassProjectArchived, d.Trigger.Revision, cursor, after-1, want)
	moved := row(t, f, d.Trigger.TriggerID)
	if moved.NextFireAtMs == nil || *moved.NextFireAtMs < before || moved.StateVersion <= archived.StateVersion {
		t.Fatalf("row after the reactivation %+v; want its cursor past the reactivation at %d and its version past %d", moved, before, archived.StateVersion)
	}
	// Nothing of the archive is due any more: no round takes the row
	// until its next occurrence, so no Run catches the archive up.
	if tks := take(t, f, schedule.MaxPageSize); len(tks) != 0 {
		t.Fatalf("took %d rows right after the reactivation; the archive would be caught up", len(tks))
	}
	if got := counts(t, f, d.Trigger.TriggerID); got.Runs != 0 {
		t.Fatalf("%d runs after the reactivation; what fell due while archived never runs late", got.Runs)
	}
	// Saving the active project again records nothing more.
	setStatus(t, f, d, project.Active)
	if got := ledger(t, f, d.Trigger.TriggerID); len(got) != 1 {
		t.Fatalf("ledger after saving the active project again: %+v", got)
	}
}

func testReactivationRacesTicket(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	makeDue(t, f, d.Trigger.TriggerID, 1_000)
	p := commitParams(t, takeOne(t, f))
	setStatus(t, f, d, project.Archived)
	setStatus(t, f, d, project.Active)
	reactivated := row(t, f, d.Trigger.TriggerID)
	if res := commit(t, f, p); res.Outcome != schedule.Raced {
		t.Fatalf("commit of a ticket taken before the archive: %s (%s), want raced", res.Outcome, res.Reason)
	}
	if c := counts(t, f, d.Trigger.TriggerID); c != (Counts{}) {
		t.Fatalf("raced commit wrote %+v", c)
	}
	if after := row(t, f, d.Trigger.TriggerID); !sameRow(after, reactivated) {
		t.Fatalf("row after the raced commit %+v; want the reactivated row %+v untouched", after, reactivated)
	}
	for _, e := range ledger(t, f, d.Trigger.TriggerID) {
		if e.Reason != schedule.PassProjectArchived || e.FirstMs < *p.Ticket.NextFireAtMs || e.LastMs >= *reactivated.NextFireAtMs {
			t.Fatalf("ledger entry %+v; want only project_archived ones before the reactivated cursor", e)
		}
	}
}

func testTriggerListArchived(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	listed := func() (schedule.TriggerStatus, schedule.TriggerDetail) {
		t.Helper()
		list, _, err := f.Status.TriggerList(t.Context(), schedule.TriggerListParams{Limit: 10})
		if err != nil || len(list) != 1 {
			t.Fatalf("trigger list: %+v, %v", list, err)
		}
		detail, err := f.Detail.TriggerDetail(t.Context(), d.Trigger.TriggerID, 10)
		if err != nil {
			t.Fatalf("trigger detail: %v", err)
		}
		return list[0], detail
	}
	if l, dt := listed(); l.Archived || l.NextFireAtMs == nil || dt.Archived || dt.NextFireAtMs == nil {
		t.Fatalf("an active project's trigger listed %+v, shown %+v; want a next fire and not archived", l, dt.TriggerStatus)
	}
	setStatus(t, f, d, project.Archived)
	if l, dt := listed(); !l.Archived || l.NextFireAtMs != nil || l.NextDueAtMs != nil || !dt.Archived || dt.NextFireAtMs != nil || dt.NextDueAtMs != nil {
		t.Fatalf("an archived project's trigger listed %+v, shown %+v; want archived with no next fire", l, dt.TriggerStatus)
	}
	setStatus(t, f, d, project.Active)
	if l, _ := listed(); l.Archived || l.NextFireAtMs == nil {
		t.Fatalf("a reactivated project's trigger listed %+v; want a next fire and not archived", l)
	}
}

func testReactivationPaused(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", trigger.Cron{Expression: "* * * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce})
	if res := commit(t, f, commitParams(t, takeOne(t, f))); res.Outcome != schedule.Initialized && res.Outcome != schedule.Admitted {
		t.Fatalf("first decision: %s (%s)", res.Outcome, res.Reason)
	}
	runs, entries := counts(t, f, d.Trigger.TriggerID).Runs, len(ledger(t, f, d.Trigger.TriggerID))
	setStatus(t, f, d, project.Archived)
	makeDue(t, f, d.Trigger.TriggerID, 3000)
	cursor := *row(t, f, d.Trigger.TriggerID).NextFireAtMs
	paused := pause(t, f, d.Trigger.TriggerID, true, "maintenance")
	f.Elapse(1100 * time.Millisecond)
	before, err := f.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	setStatus(t, f, d, project.Active)
	after, err := f.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := ledger(t, f, d.Trigger.TriggerID)
	var archived, inPause int64
	for _, e := range got[:len(got)-entries] {
		switch {
		case e.TriggerRevision != d.Trigger.Revision:
			t.Fatalf("entry %+v names revision %d, want %d", e, e.TriggerRevision, d.Trigger.Revision)
		case e.Reason == schedule.PassProjectArchived && e.FirstMs >= cursor && e.LastMs < paused.AtMs:
			archived += e.Count
		case e.Reason == schedule.PassPaused && e.FirstMs >= paused.AtMs && e.LastMs < after:
			inPause += e.Count
		default:
			t.Fatalf("entry %+v; want project_archived before the pause at %d and paused from it", e, paused.AtMs)
		}
	}
	if want := seconds(cursor, paused.AtMs-1); archived != want || want < 2 {
		t.Fatalf("ledger %+v: %d occurrences recorded as project_archived, want %d", got, archived, want)
	}
	if inPause < seconds(paused.AtMs, before-1) || inPause > seconds(paused.AtMs, after-1) || inPause < 1 {
		t.Fatalf("ledger %+v: %d occurrences recorded as paused, want those from the pause at %d to the reactivation in [%d, %d]", got, inPause, paused.AtMs, before, after)
	}
	// The pause stays in force: the reactivation moved the cursor, it
	// resumed nothing.
	if r := row(t, f, d.Trigger.TriggerID); r.NextFireAtMs == nil || *r.NextFireAtMs < before {
		t.Fatalf("row after the reactivation %+v; want its cursor past the reactivation at %d", r, before)
	}
	if tks := take(t, f, schedule.MaxPageSize); len(tks) != 0 {
		t.Fatalf("took %d rows of a paused trigger after its project's reactivation", len(tks))
	}
	if c := counts(t, f, d.Trigger.TriggerID); c.Runs != runs {
		t.Fatalf("%d runs after the reactivation, want %d: nothing of the archive runs", c.Runs, runs)
	}
}
