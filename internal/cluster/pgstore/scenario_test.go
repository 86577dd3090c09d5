package pgstore

import (
	"context"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

const testGraceMs int64 = 30_000

// published is one project with an enabled task and trigger.
type published struct {
	project project.Project
	task    task.Revision
	trigger trigger.Revision
}

// publish publishes a trigger that is not due before its first decision
// (storetest.QuietCron at the database clock).
func (s *store) publish(t testing.TB, name string) published {
	t.Helper()
	now, err := s.runtime.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return s.publishCron(t, name, storetest.QuietCron(now))
}

func (s *store) publishCron(t testing.TB, name string, c trigger.Cron) published {
	t.Helper()
	ctx := t.Context()
	svc := s.fixture().Service
	p := project.Project{ID: ids.New(), Name: name, Status: project.Active}
	if _, err := s.admin.ProjectSave(ctx, p); err != nil {
		t.Fatal(err)
	}
	tk, _, err := svc.PublishTask(ctx, p.ID, ids.New(), 0, ids.New(), task.Spec{Name: "job", Enabled: true,
		Command: task.Command{Mode: task.ModeArgv, Path: "/usr/bin/env", Args: []string{"true"}, TimeoutMs: 60_000}})
	if err != nil {
		t.Fatal(err)
	}
	tg, _, err := svc.PublishTrigger(ctx, p.ID, ids.New(), tk, 0, ids.New(), trigger.Spec{Name: "tick", Enabled: true, Cron: c})
	if err != nil {
		t.Fatal(err)
	}
	return published{project: p, task: tk, trigger: tg}
}

// dueTicket publishes a trigger, initialises it, makes it 1 s late and
// takes it with rt: the ticket's decision is an admit.
func (s *store) dueTicket(t testing.TB, rt *Runtime) (published, schedule.CommitParams) {
	t.Helper()
	return s.dueTicketNamed(t, rt, "alpha")
}

// dueTicketNamed is dueTicket for a project of the given name.
func (s *store) dueTicketNamed(t testing.TB, rt *Runtime, name string) (published, schedule.CommitParams) {
	t.Helper()
	d := s.publish(t, name)
	tks := s.takeAll(t, rt)
	if len(tks) != 1 {
		t.Fatalf("took %d, want 1", len(tks))
	}
	if res, err := rt.ScheduleCommit(t.Context(), params(t, tks[0])); err != nil || res.Outcome != schedule.Initialized {
		t.Fatalf("initialise: %+v, %v", res, err)
	}
	if err := s.makeDue(t.Context(), d.trigger.TriggerID, 1_000); err != nil {
		t.Fatal(err)
	}
	tks = s.takeAll(t, rt)
	if len(tks) != 1 {
		t.Fatalf("took %d due, want 1", len(tks))
	}
	p := params(t, tks[0])
	if p.Decision.Action != schedule.Admit {
		t.Fatalf("decision %s, want admit", p.Decision.Action)
	}
	return d, p
}

func (s *store) takeAll(t testing.TB, rt *Runtime) []schedule.Ticket {
	t.Helper()
	tks, err := rt.ScheduleTake(t.Context(), schedule.TakeParams{Limit: schedule.MaxPageSize})
	if err != nil {
		t.Fatalf("take: %v", err)
	}
	return tks
}

func params(t testing.TB, tk schedule.Ticket) schedule.CommitParams {
	t.Helper()
	d, err := schedule.DecideTicket(tk, testGraceMs)
	if err != nil {
		t.Fatal(err)
	}
	p := schedule.CommitParams{Ticket: tk, Decision: d, GraceMs: testGraceMs}
	if d.Action == schedule.Admit {
		p.RunID, p.AttemptID = ids.New(), ids.New()
	}
	return p
}

// requireNothingWritten asserts no run exists for the trigger and the row
// is exactly as before.
func (s *store) requireNothingWritten(t testing.TB, triggerID string, before storetest.Row) {
	t.Helper()
	c, err := s.counts(t.Context(), triggerID)
	if err != nil {
		t.Fatal(err)
	}
	if c != (storetest.Counts{}) {
		t.Fatalf("wrote %+v, want nothing", c)
	}
	after, err := s.row(t.Context(), triggerID)
	if err != nil {
		t.Fatal(err)
	}
	if after.StateVersion != before.StateVersion || after.ClaimVersion != before.ClaimVersion ||
		!equalPtr(after.NextFireAtMs, before.NextFireAtMs) || !equalPtr(after.ClaimOwner, before.ClaimOwner) {
		t.Fatalf("schedule row changed: %+v -> %+v", before, after)
	}
}

func equalPtr[T comparable](a, b *T) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// sleepUntilDBTime makes the database, the only clock, wait until its own
// time passes ms. No node clock is involved.
func (s *store) sleepUntilDBTime(t testing.TB, ms int64) {
	t.Helper()
	if _, err := s.super.Exec(t.Context(), `SELECT pg_sleep(greatest(0, $1 - `+ClockMsSQL+` + 1) / 1000.0)`, ms); err != nil {
		t.Fatal(err)
	}
}

// blockedBackend waits until a backend of role is waiting on a lock and
// returns its pid. Polling the catalog is the only signal PostgreSQL gives.
func (s *store) blockedBackend(t testing.TB, role string) int32 {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var pid int32
		err := s.super.QueryRow(ctx, `SELECT pid FROM pg_stat_activity
			WHERE usename = $1 AND datname = current_database() AND wait_event_type = 'Lock' LIMIT 1`, role).Scan(&pid)
		if err == nil {
			return pid
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no backend of %s ever blocked: %v", role, err)
		case <-tick.C:
		}
	}
}

func (s *store) terminate(t testing.TB, pid int32) {
	t.Helper()
	var ok bool
	if err := s.super.QueryRow(t.Context(), `SELECT pg_terminate_backend($1)`, pid).Scan(&ok); err != nil || !ok {
		t.Fatalf("terminate backend %d: %v %v", pid, ok, err)
	}
}
