package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// projectPauseCases are the guarantees of pausing a whole project: its
// pause is its triggers' ordinary pauses, marked as its own, and its
// resume resumes those alone.
func projectPauseCases() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"APausedProjectPausesItsTriggersAndOnlyThoseItPausedResume":          testProjectPauseResumesOnlyItsOwn,
		"ATriggerPublishedIntoAPausedProjectStartsPaused":                    testPublishedIntoPausedProject,
		"AProjectPauseOfAnUnknownOrArchivedProjectIsRefused":                 testProjectPauseRefusals,
		"AProjectsPauseReadsBackWithItsNoteActorAndTimeAndNotAfterItsResume": testProjectPauseReadsBack,
		"ATriggerPublishedIntoAPausedProjectHasItsPauseAudited":              testPublishedPausedIsAudited,
		"TheProjectsAreListedWithTheirStatusAndWhetherTheyArePaused":         testProjectsListed,
		"AHandedOverPauseKeepsItsStartAndNeverStartsLaterThanNow":            testHandedOverPauseKeepsItsStart,
		"ABackdatedPauseWrittenAfterLaterRecordsIsThePauseInForce":           testBackdatedPauseIsThePauseInForce,
	}
}

func pauseProject(t *testing.T, f Fixture, p string, on bool, note string) schedule.ProjectPauseResult {
	t.Helper()
	res, err := f.ProjectPauser.ProjectPause(t.Context(), schedule.ProjectPauseRequest{Project: p, Pause: on, Note: note, Actor: "conformance"})
	if err != nil {
		t.Fatalf("project pause=%v %s: %v", on, p, err)
	}
	return res
}

// requirePause requires a trigger's detail to show the pause state given.
func requirePause(t *testing.T, f Fixture, triggerID string, paused, withProject bool, note string) {
	t.Helper()
	d, err := f.Detail.TriggerDetail(t.Context(), triggerID, 10)
	if err != nil {
		t.Fatal(err)
	}
	if d.Paused != paused || d.PausedWithProject != withProject || d.PauseNote != note {
		t.Fatalf("trigger %s: paused %v with its project %v note %q; want %v, %v, %q", triggerID, d.Paused, d.PausedWithProject, d.PauseNote, paused, withProject, note)
	}
	list, _, err := f.Status.TriggerList(t.Context(), schedule.TriggerListParams{Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range list {
		if x.TriggerID == triggerID && (x.Paused != paused || x.PausedWithProject != withProject) {
			t.Fatalf("the listing says trigger %s paused %v with its project %v; want %v, %v", triggerID, x.Paused, x.PausedWithProject, paused, withProject)
		}
	}
}

func testProjectPauseResumesOnlyItsOwn(t *testing.T, f Fixture) {
	c := trigger.Cron{Expression: "* * * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}
	d := newDefs(t, f, "alpha", c)
	a := d.Trigger.TriggerID
	b := publishTrigger(t, f, d.Project.ID, ids.New(), d.Task, 0, trigger.Spec{Name: "b", Enabled: true, Cron: c}).TriggerID
	own := publishTrigger(t, f, d.Project.ID, ids.New(), d.Task, 0, trigger.Spec{Name: "own", Enabled: true, Cron: c}).TriggerID
	other := newDefs(t, f, "beta", c).Trigger.TriggerID
	for _, tk := range take(t, f, schedule.MaxPageSize) {
		commit(t, f, commitParams(t, tk))
	}
	pause(t, f, own, true, "broken disk")

	paused := pauseProject(t, f, "alpha", true, "release freeze")
	if !paused.Changed || !paused.Paused || paused.Triggers != 2 || paused.AlreadyPaused != 1 || paused.Note != "release freeze" || paused.ProjectID != d.Project.ID {
		t.Fatalf("pausing the project gave %+v; want it paused with its note, pausing the 2 triggers not paused and counting the 1 already paused on its own", paused)
	}
	requirePause(t, f, a, true, true, "release freeze")
	requirePause(t, f, own, true, false, "broken disk")
	requirePause(t, f, other, false, false, "")
	f.Elapse(2200 * time.Millisecond)
	for _, tk := range take(t, f, schedule.MaxPageSize) {
		if tk.TriggerID != other {
			t.Fatalf("trigger %s of the paused project was taken", tk.TriggerID)
		}
		commit(t, f, commitParams(t, tk))
	}
	if res := pause(t, f, b, true, "own note"); !res.Changed || !res.Paused || res.WithProject || res.Note != "own note" {
		t.Fatalf("pausing a trigger its project's pause holds gave %+v; want the pause its own, with its note", res)
	}
	if again := pauseProject(t, f, d.Project.ID, true, "other note"); again.Changed || !again.Paused || again.Note != "release freeze" || again.AtMs != paused.AtMs {
		t.Fatalf("pausing the paused project gave %+v; want nothing changed and the pause in force", again)
	}

	resumed := pauseProject(t, f, "alpha", false, "")
	if !resumed.Changed || resumed.Paused || resumed.Triggers != 1 || resumed.KeptPaused != 2 {
		t.Fatalf("resuming the project gave %+v; want 1 trigger resumed and 2 kept paused on their own", resumed)
	}
	requirePause(t, f, a, false, false, "")
	requirePause(t, f, b, true, false, "own note")
	requirePause(t, f, own, true, false, "broken disk")
	if again := pauseProject(t, f, "alpha", false, ""); again.Changed || again.Paused {
		t.Fatalf("resuming the resumed project gave %+v; want nothing changed", again)
	}
	audits, err := f.Audits(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"pause conformance release freeze", "resume conformance "}; !slices.Equal(audits, want) {
		t.Fatalf("audit of a trigger the project paused %q, want %q", audits, want)
	}
	// The resume treats what fell due meanwhile as a trigger's resume does.
	var got *schedule.Ticket
	for _, tk := range take(t, f, schedule.MaxPageSize) {
		if tk.TriggerID == b || tk.TriggerID == own {
			t.Fatalf("trigger %s, paused on its own, was taken after its project's resume", tk.TriggerID)
		}
		if tk.TriggerID == a {
			got = &tk
		}
	}
	if got == nil || got.Pause == nil || got.Pause.FromMs != paused.AtMs || got.Pause.UntilMs != resumed.AtMs {
		t.Fatalf("the resumed trigger's ticket %+v; want it taken with the pause span [%d, %d)", got, paused.AtMs, resumed.AtMs)
	}
}

func testPublishedIntoPausedProject(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	pauseProject(t, f, "alpha", true, "migration")
	late := publishTrigger(t, f, d.Project.ID, ids.New(), d.Task, 0, trigger.Spec{Name: "late", Enabled: true, Cron: quietCron(t, f)}).TriggerID
	elsewhere := newDefs(t, f, "beta", quietCron(t, f)).Trigger.TriggerID
	requirePause(t, f, late, true, true, "migration")
	requirePause(t, f, elsewhere, false, false, "")
	for _, tk := range take(t, f, schedule.MaxPageSize) {
		if tk.TriggerID != elsewhere {
			t.Fatalf("trigger %s of the paused project was taken", tk.TriggerID)
		}
	}
	if res := pauseProject(t, f, "alpha", false, ""); res.Triggers != 2 {
		t.Fatalf("resuming the project gave %+v; want both its triggers resumed, the one published while paused too", res)
	}
	requirePause(t, f, late, false, false, "")
}

func testProjectPauseRefusals(t *testing.T, f Fixture) {
	_, err := f.ProjectPauser.ProjectPause(t.Context(), schedule.ProjectPauseRequest{Project: "nowhere", Pause: true, Actor: "conformance"})
	requireCode(t, err, qlerror.NotFound, "pausing an unknown project")
	d := newDefs(t, f, "alpha", quietCron(t, f))
	p := d.Project
	p.Status = project.Archived
	if _, err := f.Catalog.ProjectSave(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	_, err = f.ProjectPauser.ProjectPause(t.Context(), schedule.ProjectPauseRequest{Project: "alpha", Pause: true, Actor: "conformance"})
	requireCode(t, err, qlerror.FailedPrecondition, "pausing an archived project")
	requirePause(t, f, d.Trigger.TriggerID, false, false, "")
}

func testProjectPauseReadsBack(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	read := func(project string) schedule.ProjectPauseState {
		t.Helper()
		st, err := f.ProjectPauses.ProjectPauseRead(t.Context(), project)
		if err != nil {
			t.Fatalf("reading the pause of project %s: %v", project, err)
		}
		return st
	}
	if st := read("alpha"); st.Paused || st.ProjectID != d.Project.ID || st.ProjectName != "alpha" || st.AtMs != 0 {
		t.Fatalf("a project never paused reads %+v; want it not paused, named, with no time", st)
	}
	paused := pauseProject(t, f, "alpha", true, "release freeze")
	want := schedule.ProjectPauseState{ProjectID: d.Project.ID, ProjectName: "alpha", Paused: true, Note: "release freeze", Actor: "conformance", AtMs: paused.AtMs}
	if st := read("alpha"); st != want {
		t.Fatalf("the paused project reads %+v; want %+v", st, want)
	}
	if st := read(d.Project.ID); st != want {
		t.Fatalf("the paused project read by its id reads %+v; want %+v", st, want)
	}
	resumed := pauseProject(t, f, "alpha", false, "")
	if st := read("alpha"); st.Paused || st.Note != "" || st.AtMs != resumed.AtMs {
		t.Fatalf("the resumed project reads %+v; want it not paused, without a note, resumed at %d", st, resumed.AtMs)
	}
	_, err := f.ProjectPauses.ProjectPauseRead(t.Context(), "nowhere")
	requireCode(t, err, qlerror.NotFound, "reading the pause of an unknown project")
}

// A list of the projects says of each its status and whether it is
// paused as a whole, the resumed one no longer: what `projects list`
// shows without reading every project.
func testProjectsListed(t *testing.T, f Fixture) {
	newDefs(t, f, "alpha", quietCron(t, f))
	newDefs(t, f, "bravo", quietCron(t, f))
	newDefs(t, f, "charlie", quietCron(t, f))
	applyFile(t, f, parse(t, "charlie.yaml", []byte("project: charlie\nstatus: archived\n")))
	pauseProject(t, f, "alpha", true, "freeze")
	pauseProject(t, f, "bravo", true, "")
	pauseProject(t, f, "bravo", false, "")
	got, err := f.Definitions.ProjectNames(t.Context(), "", 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []catalog.ProjectName{
		{Name: "alpha", Status: project.Active, Paused: true},
		{Name: "bravo", Status: project.Active},
		{Name: "charlie", Status: project.Archived},
	}
	for i := range got {
		// Each listed with its id, which the comparison leaves aside.
		if ids.Validate("project id", got[i].ID) != nil {
			t.Fatalf("project %s is listed without its id: %+v", got[i].Name, got[i])
		}
		got[i].ID = ""
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the projects listed are %+v; want %+v", got, want)
	}
}

func testPublishedPausedIsAudited(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	pauseProject(t, f, "alpha", true, "migration")
	late := publishTrigger(t, f, d.Project.ID, ids.New(), d.Task, 0, trigger.Spec{Name: "late", Enabled: true, Cron: quietCron(t, f)}).TriggerID
	audits, err := f.Audits(t.Context(), late)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"pause " + schedule.PausedAtPublishActor("conformance") + " migration"}; !slices.Equal(audits, want) {
		t.Fatalf("audit of a trigger published into the paused project %q, want %q", audits, want)
	}
	pauseProject(t, f, "alpha", false, "")
	pauseProject(t, f, "alpha", true, "second")
	// A republish (another misfire policy) finds the row there: its pause
	// is the project's of before, audited then.
	c := quietCron(t, f)
	c.MisfirePolicy = trigger.Skip
	publishTrigger(t, f, d.Project.ID, late, d.Task, 1, trigger.Spec{Name: "late", Enabled: true, Cron: c})
	audits, err = f.Audits(t.Context(), late)
	if err != nil {
		t.Fatal(err)
	}
	if len(audits) != 3 {
		t.Fatalf("audit after a republish into the paused project %q; want the publish's pause, the resume and the project's pause alone, the republish adding none", audits)
	}
}

// A pause handed over from another database (`apply --adopt-state`)
// keeps when it began there: the trigger's own pause and the project's,
// which its triggers' pauses and records share; a start later than now is
// taken as now.
func testHandedOverPauseKeepsItsStart(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	own := publishTrigger(t, f, d.Project.ID, ids.New(), d.Task, 0, trigger.Spec{Name: "own", Enabled: true, Cron: quietCron(t, f)}).TriggerID
	now, err := f.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ownSince, projectSince := now-3*86_400_000, now-2*86_400_000
	res, err := f.Pauser.TriggerPause(t.Context(), schedule.PauseRequest{TriggerID: own, Pause: true, Note: "broken disk", Actor: "alice", SinceMs: ownSince})
	if err != nil || !res.Changed || res.AtMs != ownSince {
		t.Fatalf("pausing with the source's start gave %+v, %v; want it paused since %d", res, err, ownSince)
	}
	pr, err := f.ProjectPauser.ProjectPause(t.Context(), schedule.ProjectPauseRequest{Project: "alpha", Pause: true, Note: "migration", Actor: "bob", SinceMs: projectSince})
	if err != nil || !pr.Changed || pr.Triggers != 1 || pr.AtMs != projectSince {
		t.Fatalf("pausing the project with the source's start gave %+v, %v; want its one trigger not paused paused since %d", pr, err, projectSince)
	}
	if st, err := f.ProjectPauses.ProjectPauseRead(t.Context(), "alpha"); err != nil || !st.Paused || st.AtMs != projectSince || st.Actor != "bob" || st.Note != "migration" {
		t.Fatalf("the project's pause reads %+v, %v; want paused since %d by bob, note migration", st, err, projectSince)
	}
	for _, c := range []struct {
		id, actor string
		since     int64
	}{{own, "alice", ownSince}, {d.Trigger.TriggerID, "bob", projectSince}} {
		dt, err := f.Detail.TriggerDetail(t.Context(), c.id, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !dt.Paused || dt.PausedAtMs == nil || *dt.PausedAtMs != c.since || len(dt.Audit) == 0 || dt.Audit[0].Actor != c.actor || dt.Audit[0].AtMs != c.since {
			t.Fatalf("trigger %s: paused %v since %v, audit %+v; want paused since %d by %s", c.id, dt.Paused, dt.PausedAtMs, dt.Audit, c.since, c.actor)
		}
	}
	other := newDefs(t, f, "beta", quietCron(t, f)).Trigger.TriggerID
	later, err := f.Pauser.TriggerPause(t.Context(), schedule.PauseRequest{TriggerID: other, Pause: true, Actor: "carol", SinceMs: now + 86_400_000})
	if err != nil || !later.Changed || later.AtMs >= now+86_400_000 || later.AtMs < now {
		t.Fatalf("pausing with a start a day ahead gave %+v, %v; want it paused since now (%d or after), not in the future", later, err, now)
	}
}

// testBackdatedPauseIsThePauseInForce: a pause adopted with the source's
// start, written after a pause and a resume of a later time, is the pause
// in force and the newest audit record: a store reads a trigger's records
// in the order they were written, not by their times.
func testBackdatedPauseIsThePauseInForce(t *testing.T, f Fixture) {
	id := newDefs(t, f, "alpha", quietCron(t, f)).Trigger.TriggerID
	pause(t, f, id, true, "earlier")
	pause(t, f, id, false, "")
	now, err := f.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	since := now - 3*86_400_000
	res, err := f.Pauser.TriggerPause(t.Context(), schedule.PauseRequest{TriggerID: id, Pause: true, Note: "adopted", Actor: "alice", SinceMs: since})
	if err != nil || !res.Changed || res.AtMs != since {
		t.Fatalf("pausing with the source's start gave %+v, %v; want it paused since %d", res, err, since)
	}
	if again := pause(t, f, id, true, ""); again.Changed || again.AtMs != since || again.Note != "adopted" {
		t.Fatalf("pausing the paused trigger again gave %+v; want it unchanged, paused since %d with note adopted", again, since)
	}
	dt, err := f.Detail.TriggerDetail(t.Context(), id, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !dt.Paused || dt.PausedAtMs == nil || *dt.PausedAtMs != since || len(dt.Audit) != 3 ||
		dt.Audit[0] != (schedule.AuditRecord{Action: "pause", Actor: "alice", Note: "adopted", AtMs: since}) || dt.Audit[1].Action != "resume" {
		t.Fatalf("trigger: paused %v since %v, audit %+v; want paused since %d, alice's pause the newest record before the resume", dt.Paused, dt.PausedAtMs, dt.Audit, since)
	}
}
