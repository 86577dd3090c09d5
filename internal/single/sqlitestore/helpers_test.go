package sqlitestore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// everyMinute never fires at the test clock's start (half past a minute).
var everyMinute = trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}

const testGraceMs int64 = 30_000

type defs struct {
	Project project.Project
	Task    task.Revision
	Trigger trigger.Revision
}

func trueCommand() task.Command {
	return task.Command{Mode: task.ModeArgv, Path: "/usr/bin/env", Args: []string{"true"}, TimeoutMs: 60_000}
}

func (e *env) project(t *testing.T, name string) project.Project {
	t.Helper()
	p := project.Project{ID: ids.New(), Name: name, Status: project.Active}
	if _, err := e.store.ProjectSave(t.Context(), p); err != nil {
		t.Fatalf("save project %s: %v", name, err)
	}
	return p
}

func (e *env) task(t *testing.T, p project.Project, name string, expected int64, taskID string, enabled bool) task.Revision {
	t.Helper()
	rev, _, err := e.service().PublishTask(t.Context(), p.ID, taskID, expected, ids.New(), task.Spec{Name: name, Enabled: enabled, Command: trueCommand()})
	if err != nil {
		t.Fatalf("publish task %s: %v", name, err)
	}
	return rev
}

func (e *env) trigger(t *testing.T, p project.Project, pinned task.Revision, name, triggerID string, expected int64, c trigger.Cron, enabled bool) trigger.Revision {
	t.Helper()
	rev, _, err := e.service().PublishTrigger(t.Context(), p.ID, triggerID, pinned, expected, ids.New(), trigger.Spec{Name: name, Enabled: enabled, Cron: c})
	if err != nil {
		t.Fatalf("publish trigger %s: %v", name, err)
	}
	return rev
}

// defs publishes project name with one enabled task and trigger.
func (e *env) defs(t *testing.T, name string, c trigger.Cron) defs {
	t.Helper()
	p := e.project(t, name)
	tk := e.task(t, p, "job", 0, ids.New(), true)
	return defs{Project: p, Task: tk, Trigger: e.trigger(t, p, tk, "tick", ids.New(), 0, c, true)}
}

func (e *env) take(t *testing.T, limit int) []schedule.Ticket {
	t.Helper()
	tks, err := e.store.ScheduleTake(t.Context(), schedule.TakeParams{Limit: limit})
	if err != nil {
		t.Fatalf("take: %v", err)
	}
	return tks
}

func (e *env) takeOne(t *testing.T) schedule.Ticket {
	t.Helper()
	tks := e.take(t, schedule.MaxPageSize)
	if len(tks) != 1 {
		t.Fatalf("take returned %d tickets, want 1", len(tks))
	}
	return tks[0]
}

func decide(t *testing.T, tk schedule.Ticket) schedule.Decision {
	t.Helper()
	d, err := schedule.DecideTicket(tk, testGraceMs)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func commitParams(t *testing.T, tk schedule.Ticket) schedule.CommitParams {
	t.Helper()
	p := schedule.CommitParams{Ticket: tk, Decision: decide(t, tk), GraceMs: testGraceMs}
	if p.Decision.Action == schedule.Admit {
		p.RunID, p.AttemptID = ids.New(), ids.New()
	}
	return p
}

func (e *env) commit(t *testing.T, p schedule.CommitParams) (schedule.CommitResult, error) {
	t.Helper()
	return e.store.ScheduleCommit(t.Context(), p)
}

func (e *env) countsOf(t *testing.T, triggerID string) storetest.Counts {
	t.Helper()
	c, err := e.counts(t.Context(), triggerID)
	if err != nil {
		t.Fatalf("counts of %s: %v", triggerID, err)
	}
	return c
}

func (e *env) due(t *testing.T, triggerID string, lateMs int64) {
	t.Helper()
	if err := e.makeDue(t.Context(), triggerID, lateMs); err != nil {
		t.Fatal(err)
	}
}

// admit makes the trigger due and admits it, returning the run id.
func (e *env) admit(t *testing.T, triggerID string) string {
	t.Helper()
	e.due(t, triggerID, 1000)
	for _, tk := range e.take(t, schedule.MaxPageSize) {
		if tk.TriggerID != triggerID {
			continue
		}
		res, err := e.commit(t, commitParams(t, tk))
		if err != nil || res.Outcome != schedule.Admitted {
			t.Fatalf("admit %s: %+v, %v", triggerID, res, err)
		}
		return res.RunID
	}
	t.Fatalf("trigger %s was not taken after being made due", triggerID)
	return ""
}

func requireCode(t *testing.T, err error, code qlerror.Code, what string) {
	t.Helper()
	if !qlerror.Is(err, code) {
		t.Fatalf("%s: want a %s error, got %v", what, code, err)
	}
}

func requireOutcome(t *testing.T, res schedule.CommitResult, outcome schedule.Outcome, reason schedule.Reason) {
	t.Helper()
	if res.Outcome != outcome || (reason != "" && res.Reason != reason) {
		t.Fatalf("commit: %s (%s), want %s (%s)", res.Outcome, res.Reason, outcome, reason)
	}
}

// retryingTrigger is trigger tick of a new project named name, every
// minute, running task job, which succeeds and is retried once, a second
// later, when it fails.
func (e *env) retryingTrigger(t *testing.T, name string) trigger.Revision {
	t.Helper()
	p := e.project(t, name)
	cmd := trueCommand()
	cmd.Retry = task.RetryPolicy{MaxAttempts: 2, BackoffMs: 1000, On: []string{string(run.AttemptFailed)}}
	tk, _, err := e.service().PublishTask(t.Context(), p.ID, ids.New(), 0, ids.New(), task.Spec{Name: "job", Enabled: true, Command: cmd})
	if err != nil {
		t.Fatal(err)
	}
	return e.trigger(t, p, tk, "tick", ids.New(), 0, everyMinute, true)
}
