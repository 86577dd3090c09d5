package pgstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/testkit/faults"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// endingPublish is a publish that makes an admitted trigger ineligible,
// and the reason a commit that verifies after it reports.
type endingPublish struct {
	name   string
	reason schedule.Reason
	run    func(ctx context.Context, admin *Admin, d published) error
}

// endingPublishes are the three ways a publish ends a row's eligibility:
// archiving its project, a new task revision (the trigger stays pinned to
// the old one) and a new trigger revision (here disabling it).
var endingPublishes = []endingPublish{
	{"archive project", schedule.ReasonProjectInactive, func(ctx context.Context, admin *Admin, d published) error {
		_, err := admin.ProjectSave(ctx, project.Project{ID: d.project.ID, Name: d.project.Name, Status: project.Archived})
		return err
	}},
	{"new task revision", schedule.ReasonTaskRevisionChanged, func(ctx context.Context, admin *Admin, d published) error {
		spec := d.task.Spec
		spec.Command.Args = []string{"false"}
		_, _, err := service(admin).PublishTask(ctx, d.project.ID, d.task.TaskID, d.task.Revision, ids.New(), spec)
		return err
	}},
	{"disable trigger", schedule.ReasonTriggerRevisionChanged, func(ctx context.Context, admin *Admin, d published) error {
		spec := d.trigger.Spec
		spec.Enabled = false
		_, _, err := service(admin).PublishTrigger(ctx, d.project.ID, d.trigger.TriggerID, d.task, d.trigger.Revision, ids.New(), spec)
		return err
	}},
}

func service(admin *Admin) catalog.Service {
	return catalog.Service{Store: admin, Executor: task.RemoteWorker, NowMs: func() int64 { return time.Now().UnixMilli() }}
}

// sharedProxy is a fault proxy in front of the shared server.
func sharedProxy(t *testing.T) *faults.Proxy {
	t.Helper()
	proxy, err := faults.StartProxy(fmt.Sprintf("127.0.0.1:%d", pgtest.Server(t).Port()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := proxy.Close(); err != nil {
			t.Errorf("closing the proxy: %v", err)
		}
	})
	return proxy
}

// awaitHeld waits until hold froze its client.
func awaitHeld(t *testing.T, hold *faults.Hold) {
	t.Helper()
	select {
	case <-hold.Held():
	case <-time.After(30 * time.Second):
		t.Fatal("the client to be frozen never sent the statement")
	}
}

// TestPublishMeetsAnOpenAdmissionOnTheRowLock: the admission locks only
// its schedule row, so every publish that would change its verdict must
// meet that lock. With an admission frozen after its lock statement, each
// ending publish waits for it; released, the admission is admitted (it
// serialises first) and the publish then completes on its own retry.
func TestPublishMeetsAnOpenAdmissionOnTheRowLock(t *testing.T) {
	t.Parallel()
	for _, pub := range endingPublishes {
		t.Run(pub.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			proxy := sharedProxy(t)
			proxied, err := proxy.URL(s.url(RoleRuntime))
			if err != nil {
				t.Fatal(err)
			}
			frozen := s.openRuntimeAt(t, proxied, "replica-frozen", testLease)
			d := s.publish(t, "alpha")
			if tks := s.takeAll(t, s.runtime); len(tks) != 1 {
				t.Fatalf("took %d, want 1", len(tks))
			} else if res, err := s.runtime.ScheduleCommit(t.Context(), params(t, tks[0])); err != nil || res.Outcome != schedule.Initialized {
				t.Fatalf("initialise: %+v, %v", res, err)
			}
			if err := s.makeDue(t.Context(), d.trigger.TriggerID, 1_000); err != nil {
				t.Fatal(err)
			}
			tks := s.takeAll(t, frozen)
			if len(tks) != 1 {
				t.Fatalf("the frozen replica took %d, want 1", len(tks))
			}
			p := params(t, tks[0])

			hold := proxy.ArmHold(sqlCommitWrite)
			t.Cleanup(hold.Release)
			admitted := make(chan error, 1)
			var res schedule.CommitResult
			go func() {
				var err error
				res, err = frozen.ScheduleCommit(t.Context(), p)
				admitted <- err
			}()
			awaitHeld(t, hold)
			published := make(chan error, 1)
			go func() { published <- pub.run(t.Context(), s.admin, d) }()
			s.blockedBackend(t, s.roles.Admin)
			select {
			case err := <-published:
				t.Fatalf("the publish ended (%v) while the admission held its row", err)
			default:
			}

			hold.Release()
			if err := <-admitted; err != nil || res.Outcome != schedule.Admitted {
				t.Fatalf("the admission after the publish waited for it: %+v, %v; want admitted", res, err)
			}
			if err := <-published; err != nil {
				t.Fatalf("the publish after the admission: %v", err)
			}
			if c, err := s.counts(t.Context(), d.trigger.TriggerID); err != nil || c.Runs != 1 {
				t.Fatalf("runs of the trigger: %+v, %v; want 1", c, err)
			}
			var schedulable bool
			if err := s.super.QueryRow(t.Context(), `SELECT schedulable FROM qinglong.trigger_schedules WHERE trigger_id = $1`,
				d.trigger.TriggerID).Scan(&schedulable); err != nil || schedulable {
				t.Fatalf("schedulable after the publish: %v, %v; want false", schedulable, err)
			}
		})
	}
}

// TestAdmissionMeetsAnOpenPublishOnTheRowLock: the other order. A publish
// frozen right before its COMMIT holds the schedule row it rewrote; the
// admission waits for it and, once the publish commits, its lock statement
// fails with a serialization error, the retry sees the publish, and the
// outcome is exactly the race that publish causes, with nothing written.
func TestAdmissionMeetsAnOpenPublishOnTheRowLock(t *testing.T) {
	t.Parallel()
	for _, pub := range endingPublishes {
		t.Run(pub.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			proxy := sharedProxy(t)
			proxied, err := proxy.URL(s.url(RoleAdmin))
			if err != nil {
				t.Fatal(err)
			}
			admin, err := OpenAdmin(t.Context(), proxied)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(admin.Close)
			d, p := s.dueTicket(t, s.runtime)

			hold := proxy.ArmHold("COMMIT")
			t.Cleanup(hold.Release)
			published := make(chan error, 1)
			go func() { published <- pub.run(t.Context(), admin, d) }()
			awaitHeld(t, hold)
			admitted := make(chan error, 1)
			var res schedule.CommitResult
			go func() {
				var err error
				res, err = s.runtime.ScheduleCommit(t.Context(), p)
				admitted <- err
			}()
			s.blockedBackend(t, s.roles.Runtime)

			hold.Release()
			if err := <-published; err != nil {
				t.Fatalf("the publish: %v", err)
			}
			if err := <-admitted; err != nil || res.Outcome != schedule.Raced || res.Reason != pub.reason {
				t.Fatalf("the admission that waited for the publish: %+v, %v; want raced (%s)", res, err, pub.reason)
			}
			if c, err := s.counts(t.Context(), d.trigger.TriggerID); err != nil || c != (storetest.Counts{}) {
				t.Fatalf("the raced admission wrote %+v (%v); want nothing", c, err)
			}
		})
	}
}
