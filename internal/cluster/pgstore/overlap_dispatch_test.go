package pgstore

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
)

// Under queue_one the Run admitted behind an unfinished one is granted to
// no worker until the earlier Run has finished, however many slots are
// free.
func TestAQueuedOneRunIsNotGrantedWhileTheEarlierRunIsUnfinished(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	triggerID := s.applyTrigger(t, "q", "{name: tick, task: job, cron: \"0 0 1 1 *\", timezone: UTC, overlap: queue_one}", "tick")
	first, err := s.runtime.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: triggerID, RequestID: "one"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.runtime.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: triggerID, RequestID: "two"})
	if err != nil || !second.Created {
		t.Fatalf("second request: %+v, %v; want a waiting Run", second, err)
	}
	w := s.newWorker(t, "w1", nil, 4)
	if _, grants := s.pull(t, w, 4); len(grants) != 1 || grants[0].RunID != first.RunID {
		t.Fatalf("granted %+v; want only the first Run, the second waiting behind it", grants)
	}
	if _, err := s.runtime.CancelRun(t.Context(), first.RunID, "test"); err != nil {
		t.Fatal(err)
	}
	if _, grants := s.pull(t, w, 4); len(grants) != 1 || grants[0].RunID != second.RunID {
		t.Fatalf("granted %+v after the first Run ended; want the waiting one", grants)
	}
}

// applyTrigger applies, as the admin role, project with one task "job"
// (echo hi, run by remote workers) and the trigger given as a YAML flow
// mapping, and returns the id of the trigger named name.
func (s *store) applyTrigger(t *testing.T, project, trigger, name string) string {
	t.Helper()
	doc, err := apply.Parse(project+".yaml", []byte("project: "+project+"\ntasks:\n  - name: job\n    script: echo hi\ntriggers:\n  - "+trigger+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	svc := catalog.Service{Store: s.admin, Executor: task.RemoteWorker, NowMs: func() int64 { return time.Now().UnixMilli() }}
	if _, err := apply.Apply(t.Context(), svc, doc, ids.New); err != nil {
		t.Fatal(err)
	}
	var triggerID string
	if err := s.super.QueryRow(t.Context(), `SELECT t.id FROM qinglong.triggers t JOIN qinglong.projects p ON p.id = t.project_id WHERE p.name = $1 AND t.name = $2`, project, name).Scan(&triggerID); err != nil {
		t.Fatal(err)
	}
	return triggerID
}
