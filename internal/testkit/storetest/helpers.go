package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// QuietCron fires hourly at the minute half an hour away from nowMs, so a
// trigger published at nowMs is never due before its first decision: an
// every-minute trigger published at hh:mm:59.9 on a real clock is due
// 100 ms later and would be admitted, not initialised.
func QuietCron(nowMs int64) trigger.Cron {
	minute := (time.UnixMilli(nowMs).UTC().Minute() + 30) % 60
	return trigger.Cron{Expression: fmt.Sprintf("%d * * * *", minute), Timezone: "UTC", MisfirePolicy: trigger.FireOnce}
}

// quietCron is QuietCron at the fixture's clock.
func quietCron(t testing.TB, f Fixture) trigger.Cron {
	t.Helper()
	now, err := f.NowMs(t.Context())
	if err != nil {
		t.Fatalf("read the adapter's clock: %v", err)
	}
	return QuietCron(now)
}

// graceMs is the misfire grace the suite decides with.
const graceMs int64 = 30_000

// defs is one project with one task and one trigger, published through the
// fixture's Service.
type defs struct {
	Project project.Project
	Task    task.Revision
	Trigger trigger.Revision
}

func newProject(t testing.TB, f Fixture, name string) project.Project {
	t.Helper()
	p := project.Project{ID: ids.New(), Name: name, Status: project.Active}
	if _, err := f.Catalog.ProjectSave(t.Context(), p); err != nil {
		t.Fatalf("create project %s: %v", name, err)
	}
	return p
}

func commandSpec(name string, enabled bool) task.Spec {
	return task.Spec{Name: name, Enabled: enabled, Command: task.Command{
		Mode: task.ModeArgv, Path: "/usr/bin/env", Args: []string{"true"}, TimeoutMs: 60_000,
	}}
}

func publishTask(t testing.TB, f Fixture, projectID, taskID string, expected int64, spec task.Spec) task.Revision {
	t.Helper()
	rev, _, err := f.Service.PublishTask(t.Context(), projectID, taskID, expected, ids.New(), spec)
	if err != nil {
		t.Fatalf("publish task %s: %v", spec.Name, err)
	}
	return rev
}

func publishTrigger(t testing.TB, f Fixture, projectID, triggerID string, pinned task.Revision, expected int64, spec trigger.Spec) trigger.Revision {
	t.Helper()
	rev, _, err := f.Service.PublishTrigger(t.Context(), projectID, triggerID, pinned, expected, ids.New(), spec)
	if err != nil {
		t.Fatalf("publish trigger %s: %v", spec.Name, err)
	}
	return rev
}

// newDefs publishes project name with an enabled task and an enabled
// trigger on c.
func newDefs(t testing.TB, f Fixture, name string, c trigger.Cron) defs {
	t.Helper()
	p := newProject(t, f, name)
	tk := publishTask(t, f, p.ID, ids.New(), 0, commandSpec("job", true))
	tg := publishTrigger(t, f, p.ID, ids.New(), tk, 0, trigger.Spec{Name: "tick", Enabled: true, Cron: c})
	return defs{Project: p, Task: tk, Trigger: tg}
}

// initialisedDefs publishes one project as newDefs does, its trigger on a
// cron that stays quiet through the test, and takes its first decision, so
// the test's own admissions (admitNow) are its only Runs.
func initialisedDefs(t testing.TB, f Fixture, name string) defs {
	t.Helper()
	d := newDefs(t, f, name, quietCron(t, f))
	initialise(t, f)
	return d
}

// decide is the scheduler's decision for a ticket.
func decide(t testing.TB, tk schedule.Ticket) schedule.Decision {
	t.Helper()
	d, err := schedule.DecideTicket(tk, graceMs)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func commitParams(t testing.TB, tk schedule.Ticket) schedule.CommitParams {
	t.Helper()
	p := schedule.CommitParams{Ticket: tk, Decision: decide(t, tk), GraceMs: graceMs}
	if p.Decision.Action == schedule.Admit {
		p.RunID, p.AttemptID = ids.New(), ids.New()
	}
	return p
}

func take(t testing.TB, f Fixture, limit int) []schedule.Ticket {
	t.Helper()
	tks, err := f.Schedule.ScheduleTake(t.Context(), schedule.TakeParams{Limit: limit})
	if err != nil {
		t.Fatalf("take: %v", err)
	}
	return tks
}

func takeOne(t testing.TB, f Fixture) schedule.Ticket {
	t.Helper()
	tks := take(t, f, schedule.MaxPageSize)
	if len(tks) != 1 {
		t.Fatalf("take returned %d tickets, want 1", len(tks))
	}
	return tks[0]
}

func commit(t testing.TB, f Fixture, p schedule.CommitParams) schedule.CommitResult {
	t.Helper()
	res, err := commitVia(t.Context(), f, p)
	if err != nil && res.Outcome != schedule.Failed && res.Outcome != schedule.Unavailable {
		t.Fatalf("commit: outcome %s with error %v", res.Outcome, err)
	}
	return res
}

// commitVia commits one decision the way the case runs: alone through
// ScheduleCommit, or as a page of one through ScheduleCommitPage.
func commitVia(ctx context.Context, f Fixture, p schedule.CommitParams) (schedule.CommitResult, error) {
	if !f.page {
		return f.Schedule.ScheduleCommit(ctx, p)
	}
	rs, err := f.Schedule.ScheduleCommitPage(ctx, []schedule.CommitParams{p})
	if len(rs) != 1 {
		return schedule.CommitResult{}, fmt.Errorf("a page of one decision returned %d results (error %v)", len(rs), err)
	}
	return rs[0], err
}

// commitPage commits ps as one page and requires one result per decision.
func commitPage(t testing.TB, f Fixture, ps []schedule.CommitParams) []schedule.CommitResult {
	t.Helper()
	rs, err := f.Schedule.ScheduleCommitPage(t.Context(), ps)
	if err != nil {
		t.Fatalf("commit page of %d: %v", len(ps), err)
	}
	if len(rs) != len(ps) {
		t.Fatalf("a page of %d decisions returned %d results", len(ps), len(rs))
	}
	return rs
}

func row(t testing.TB, f Fixture, triggerID string) Row {
	t.Helper()
	r, err := f.Row(t.Context(), triggerID)
	if err != nil {
		t.Fatalf("row of %s: %v", triggerID, err)
	}
	return r
}

func counts(t testing.TB, f Fixture, triggerID string) Counts {
	t.Helper()
	c, err := f.Counts(t.Context(), triggerID)
	if err != nil {
		t.Fatalf("counts of %s: %v", triggerID, err)
	}
	return c
}

func makeDue(t testing.TB, f Fixture, triggerID string, lateMs int64) {
	t.Helper()
	if err := f.MakeDue(t.Context(), triggerID, lateMs); err != nil {
		t.Fatalf("make %s due: %v", triggerID, err)
	}
}

// initialise takes and commits a fresh trigger's first decision, so its
// row has a cursor.
func initialise(t testing.TB, f Fixture) {
	t.Helper()
	for _, tk := range take(t, f, schedule.MaxPageSize) {
		if res := commit(t, f, commitParams(t, tk)); res.Outcome != schedule.Initialized {
			t.Fatalf("first decision of %s: %s (%s), want initialized", tk.TriggerID, res.Outcome, res.Reason)
		}
	}
}

func requireCode(t testing.TB, err error, code qlerror.Code, what string) {
	t.Helper()
	if !qlerror.Is(err, code) {
		t.Fatalf("%s: want a %s error, got %v", what, code, err)
	}
}

// sameRow compares rows by value (their optional fields are pointers).
func sameRow(a, b Row) bool {
	return a.TriggerRevision == b.TriggerRevision && sameInt(a.NextFireAtMs, b.NextFireAtMs) &&
		sameInt(a.LastScheduledAtMs, b.LastScheduledAtMs) && a.StateVersion == b.StateVersion &&
		sameString(a.ClaimOwner, b.ClaimOwner) && a.ClaimVersion == b.ClaimVersion
}

func sameInt(a, b *int64) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }

func sameString(a, b *string) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// errOnly is the error of a change that also says whether it changed
// anything, for a test that asks only whether it failed.
func errOnly(_ bool, err error) error { return err }
