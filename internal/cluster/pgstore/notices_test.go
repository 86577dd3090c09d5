package pgstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// noticeListener listens on both channels, counting each apart, and
// returns once it is subscribed (it heard a runs-queued notice of its own).
type noticeListener struct {
	runs, schedules chan struct{}
}

func listenNotices(t *testing.T, s *store) *noticeListener {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	l := &noticeListener{runs: make(chan struct{}, 64), schedules: make(chan struct{}, 64)}
	done := make(chan error, 1)
	go func() {
		done <- s.runtime.Listen(ctx, Notices{RunsQueued: func(bool) { l.runs <- struct{}{} }, SchedulesChanged: func() { l.schedules <- struct{}{} }})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("listener ended with %v when its context ended, want nil", err)
		}
	})
	deadline := time.After(10 * time.Second)
	for heard := false; !heard; {
		if err := s.runtime.NotifyRunsQueued(t.Context()); err != nil {
			t.Fatal(err)
		}
		select {
		case <-l.runs:
			heard = true
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatal("not subscribed within 10 s")
		}
	}
	return l
}

// expectSchedulesNotices fails unless exactly want schedules-changed
// notices arrived since the last call. Notices are delivered in the order
// of their commits (and each test has a database of its own), so once a
// runs-queued notice sent afterwards has arrived, every notice of what
// came before it has too.
func (l *noticeListener) expectSchedulesNotices(t *testing.T, s *store, what string, want int) {
	t.Helper()
	if err := s.runtime.NotifyRunsQueued(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.runs:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the listener heard no runs-queued notice within 10 s", what)
	}
	if got := len(l.schedules); got != want {
		t.Fatalf("%s: %d schedules-changed notices, want %d", what, got, want)
	}
	for range want {
		<-l.schedules
	}
}

// TestEveryChangeThatCanMakeARowClaimableWakesTheSchedulersOnCommitOnly:
// a publish, archiving and reactivating a project, a pause and a resume
// each deliver a schedules-changed notice once they commit, so the
// replicas claim a new row at once rather than at their next tick; a
// change that is rolled back delivers none, and a runs-queued notice never
// reaches the schedulers.
func TestEveryChangeThatCanMakeARowClaimableWakesTheSchedulersOnCommitOnly(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	l := listenNotices(t, s)
	ctx := t.Context()

	pub := s.publish(t, "notices")
	// The project, its task and its trigger: the task's and the trigger's
	// transactions refresh eligibility; the new project's does not.
	l.expectSchedulesNotices(t, s, "publishing a project, a task and a trigger", 2)

	archived := pub.project
	archived.Status = project.Archived
	errAbandoned := errors.New("abandoned")
	err := s.admin.Publish(ctx, func(tx catalog.Tx) error {
		if _, err := tx.ProjectSave(ctx, archived); err != nil {
			return err
		}
		return errAbandoned
	})
	if !errors.Is(err, errAbandoned) {
		t.Fatalf("abandoned archive: %v", err)
	}
	l.expectSchedulesNotices(t, s, "an archive rolled back", 0)

	if _, err := s.admin.ProjectSave(ctx, archived); err != nil {
		t.Fatal(err)
	}
	l.expectSchedulesNotices(t, s, "archiving the project", 1)
	if _, err := s.admin.ProjectSave(ctx, pub.project); err != nil {
		t.Fatal(err)
	}
	l.expectSchedulesNotices(t, s, "reactivating the project", 1)

	for _, pause := range []bool{true, false} {
		if _, err := s.admin.TriggerPause(ctx, schedule.PauseRequest{TriggerID: pub.trigger.TriggerID, Pause: pause, Actor: "test"}); err != nil {
			t.Fatal(err)
		}
		l.expectSchedulesNotices(t, s, map[bool]string{true: "pausing the trigger", false: "resuming it"}[pause], 1)
	}
}
