package storetest

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// triggerActivity reads the fixture's per-trigger monitoring with limit.
func triggerActivity(t *testing.T, f Fixture, limit int) schedule.TriggerActivitySnapshot {
	t.Helper()
	snap, err := f.Activity.TriggerActivity(t.Context(), limit)
	if err != nil {
		t.Fatalf("per-trigger monitoring: %v", err)
	}
	return snap
}

// msOf says a store time that may be missing.
func msOf(ms *int64) string {
	if ms == nil {
		return "none"
	}
	return strconv.FormatInt(*ms, 10)
}

// testTriggerActivity: per-trigger monitoring lists the enabled triggers
// of active projects by project then trigger name, cut at the limit with
// the count of all of them beside; for each, the creation of its newest
// Run, the end of its latest succeeded Run (kept when a later Run fails;
// none for a trigger that never succeeded) and its due instant while it
// is not paused. A limit outside its range is refused.
func testTriggerActivity(t *testing.T, f Fixture) {
	alpha := newDefs(t, f, "alpha", quietCron(t, f))
	bravo := newDefs(t, f, "bravo", quietCron(t, f))
	disabled := newDefs(t, f, "charlie", quietCron(t, f))
	spec := disabled.Trigger.Spec
	spec.Enabled = false
	publishTrigger(t, f, disabled.Project.ID, disabled.Trigger.TriggerID, disabled.Task, 1, spec)
	archived := newDefs(t, f, "delta", quietCron(t, f))
	archived.Project.Status = project.Archived
	if _, err := f.Catalog.ProjectSave(t.Context(), archived.Project); err != nil {
		t.Fatal(err)
	}
	initialise(t, f)

	succeeded := admitNow(t, f, bravo.Trigger.TriggerID, 5_000)
	if _, err := f.Finish(t.Context(), succeeded, run.AttemptSucceeded); err != nil {
		t.Fatal(err)
	}
	failed := admitNow(t, f, bravo.Trigger.TriggerID, 2_000)
	if _, err := f.Finish(t.Context(), failed, run.AttemptFailed); err != nil {
		t.Fatal(err)
	}
	success, last := runByID(t, f, succeeded), runByID(t, f, failed)
	pause(t, f, bravo.Trigger.TriggerID, true, "")

	snap := triggerActivity(t, f, 10)
	if snap.Eligible != 2 || len(snap.Triggers) != 2 {
		t.Fatalf("per-trigger monitoring: %+v; want alpha's and bravo's triggers only (charlie's is disabled, delta archived)", snap)
	}
	a, b := snap.Triggers[0], snap.Triggers[1]
	due := row(t, f, alpha.Trigger.TriggerID).DueAtMs
	if a.Project != "alpha" || a.Trigger != "tick" || a.LastRunAtMs != nil || a.LastSuccessAtMs != nil || due == nil || !sameInt(a.NextFireAtMs, due) {
		t.Fatalf("alpha/%s: last Run %s, last success %s, next %s; want no Run, no success, next due at %s",
			a.Trigger, msOf(a.LastRunAtMs), msOf(a.LastSuccessAtMs), msOf(a.NextFireAtMs), msOf(due))
	}
	if b.Project != "bravo" || b.Trigger != "tick" || !sameInt(b.LastRunAtMs, &last.CreatedAtMs) || !sameInt(b.LastSuccessAtMs, success.FinishedAtMs) || b.NextFireAtMs != nil {
		t.Fatalf("bravo: last Run %s, last success %s, next %s; want the failed Run's creation %d, the succeeded Run's end %s, and no next fire while paused",
			msOf(b.LastRunAtMs), msOf(b.LastSuccessAtMs), msOf(b.NextFireAtMs), last.CreatedAtMs, msOf(success.FinishedAtMs))
	}
	if capped := triggerActivity(t, f, 1); capped.Eligible != 2 || len(capped.Triggers) != 1 || capped.Triggers[0].Project != "alpha" {
		t.Fatalf("per-trigger monitoring cut at 1: %+v; want alpha's trigger, of 2", capped)
	}
	for _, bad := range []int{0, schedule.MonitorLimit + 1} {
		if _, err := f.Activity.TriggerActivity(t.Context(), bad); err == nil {
			t.Errorf("per-trigger limit %d was accepted", bad)
		}
	}
}

// testTriggerActivityPaused: per-trigger monitoring says which triggers
// are paused, so alerts on staleness can leave them out: a paused trigger
// reads paused until it is resumed, one never paused reads not paused,
// and the triggers of a paused project read paused.
func testTriggerActivityPaused(t *testing.T, f Fixture) {
	newDefs(t, f, "echo", quietCron(t, f))
	held := newDefs(t, f, "foxtrot", quietCron(t, f))
	initialise(t, f)
	paused := func() []bool {
		t.Helper()
		var out []bool
		for _, a := range triggerActivity(t, f, 10).Triggers {
			out = append(out, a.Paused)
		}
		return out
	}
	if got := paused(); fmt.Sprint(got) != "[false false]" {
		t.Fatalf("echo's and foxtrot's triggers paused %v; want neither", got)
	}
	pause(t, f, held.Trigger.TriggerID, true, "")
	if got := paused(); fmt.Sprint(got) != "[false true]" {
		t.Fatalf("with foxtrot's trigger paused, echo's and foxtrot's read paused %v; want foxtrot's alone", got)
	}
	pause(t, f, held.Trigger.TriggerID, false, "")
	if got := paused(); fmt.Sprint(got) != "[false false]" {
		t.Fatalf("after foxtrot's trigger was resumed, paused %v; want neither", got)
	}
	pauseProject(t, f, "echo", true, "")
	if got := paused(); fmt.Sprint(got) != "[true false]" {
		t.Fatalf("with project echo paused, echo's and foxtrot's triggers read paused %v; want echo's alone", got)
	}
}
