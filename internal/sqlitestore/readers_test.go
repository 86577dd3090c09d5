package sqlitestore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/ids"
	"github.com/qinglong/qinglong/internal/qlerror"
	"github.com/qinglong/qinglong/internal/run"
	"github.com/qinglong/qinglong/internal/schedule"
)

func TestRunListPagesNewestFirstAndFilters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.defs(t, "a", everyMinute), e.defs(t, "b", everyMinute)
	var admitted []string
	for _, tg := range []string{a.Trigger.TriggerID, b.Trigger.TriggerID, a.Trigger.TriggerID} {
		e.clock.Advance(61_000)
		admitted = append(admitted, e.admit(t, tg))
	}
	page1, next, err := e.store.RunList(t.Context(), run.ListParams{Limit: 2})
	if err != nil || len(page1) != 2 || page1[0].ID != admitted[2] || page1[1].ID != admitted[1] || next != admitted[1] {
		t.Fatalf("page 1: %d runs, next %q, %v", len(page1), next, err)
	}
	page2, next, err := e.store.RunList(t.Context(), run.ListParams{Limit: 2, After: next})
	if err != nil || len(page2) != 1 || page2[0].ID != admitted[0] || next != "" {
		t.Fatalf("page 2: %+v, next %q, %v", page2, next, err)
	}
	byTrigger, _, err := e.store.RunList(t.Context(), run.ListParams{TriggerID: a.Trigger.TriggerID})
	if err != nil || len(byTrigger) != 2 {
		t.Fatalf("runs of trigger a: %d, %v", len(byTrigger), err)
	}
	byState, _, err := e.store.RunList(t.Context(), run.ListParams{State: run.Succeeded, ProjectID: b.Project.ID})
	if err != nil || len(byState) != 0 {
		t.Fatalf("succeeded runs of b: %d, %v", len(byState), err)
	}
	_, _, err = e.store.RunList(t.Context(), run.ListParams{State: "done"})
	requireCode(t, err, qlerror.Invalid, "unknown state filter")
	_, _, err = e.store.RunList(t.Context(), run.ListParams{Limit: run.MaxPageSize + 1})
	requireCode(t, err, qlerror.Invalid, "limit above the maximum")
}

func TestRunGetNamesWhatIsWrong(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, err := e.store.RunGet(t.Context(), ids.New())
	requireCode(t, err, qlerror.NotFound, "unknown run")
	_, err = e.store.RunGet(t.Context(), "not-an-id")
	requireCode(t, err, qlerror.Invalid, "malformed run id")
}

func TestTriggerListShowsRevisionTaskAndScheduleState(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.defs(t, "a", everyMinute), e.defs(t, "b", everyMinute)
	runs := e.admit(t, a.Trigger.TriggerID)
	if runs == "" {
		t.Fatal("no admission")
	}
	list, next, err := e.store.TriggerList(t.Context(), schedule.TriggerListParams{Limit: 1})
	if err != nil || len(list) != 1 || next != list[0].TriggerID {
		t.Fatalf("page of 1: %d, next %q, %v", len(list), next, err)
	}
	all, _, err := e.store.TriggerList(t.Context(), schedule.TriggerListParams{})
	if err != nil || len(all) != 2 {
		t.Fatalf("all triggers: %d, %v", len(all), err)
	}
	byID := map[string]schedule.TriggerStatus{}
	for _, s := range all {
		byID[s.TriggerID] = s
	}
	sa, sb := byID[a.Trigger.TriggerID], byID[b.Trigger.TriggerID]
	if sa.ProjectName != "a" || sa.TaskName != "job" || sa.Revision != 1 || !sa.Enabled || sa.LastScheduledAtMs == nil || sa.NextFireAtMs == nil || sa.Cron != everyMinute {
		t.Fatalf("admitted trigger status %+v", sa)
	}
	if sb.NextFireAtMs != nil || sb.LastScheduledAtMs != nil || sb.StateVersion != 1 {
		t.Fatalf("fresh trigger status %+v", sb)
	}
	onlyB, _, err := e.store.TriggerList(t.Context(), schedule.TriggerListParams{ProjectID: b.Project.ID})
	if err != nil || len(onlyB) != 1 || onlyB[0].TriggerID != b.Trigger.TriggerID {
		t.Fatalf("project filter: %+v, %v", onlyB, err)
	}
}

func TestRunsCarryTheTriggerNameTheyFiredUnder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.defs(t, "alpha", everyMinute)
	e.clock.Advance(61_000)
	id := e.admit(t, d.Trigger.TriggerID)
	e.trigger(t, d.Project, d.Task, "renamed", d.Trigger.TriggerID, d.Trigger.Revision, everyMinute, true)
	list, _, err := e.store.RunList(t.Context(), run.ListParams{})
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	got, err := e.store.RunGet(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []run.Run{list[0], got.Run} {
		if r.ProjectName != "alpha" || r.TriggerName != d.Trigger.Spec.Name {
			t.Fatalf("run %s named %q/%q, want alpha/%s (the trigger's name at revision %d, not its current one)", r.ID, r.ProjectName, r.TriggerName, d.Trigger.Spec.Name, r.TriggerRevision)
		}
	}
}
