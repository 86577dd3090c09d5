package pgstore

import (
	"reflect"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// TestAPageVerifiesEachStoredDefinitionOnceAndReportsACorruptOneOnlyForItsRows:
// a page's rows that pin the same task revision share its verification,
// and a corrupt execution revision fails exactly the rows that pin it,
// whichever comes first in the page, while the others are admitted.
func TestAPageVerifiesEachStoredDefinitionOnceAndReportsACorruptOneOnlyForItsRows(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	good, bad := s.publish(t, "good"), s.publish(t, "bad")
	now, err := s.runtime.NowMs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Second triggers on each task: two rows of the page per task revision.
	svc := s.fixture().Service
	var triggerIDs []string
	for _, p := range []published{good, bad} {
		tg, _, err := svc.PublishTrigger(ctx, p.project.ID, ids.New(), p.task, 0, ids.New(),
			trigger.Spec{Name: "tock", Enabled: true, Cron: storetest.QuietCron(now)})
		if err != nil {
			t.Fatal(err)
		}
		triggerIDs = append(triggerIDs, p.trigger.TriggerID, tg.TriggerID)
	}
	s.initialiseAll(t, s.runtime, 4)
	for _, id := range triggerIDs {
		if err := s.makeDue(ctx, id, 1_000); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.fixture().Tamper.CorruptExecutions(ctx, bad.task.TaskID); err != nil {
		t.Fatal(err)
	}
	tks := s.takeByTrigger(t, s.runtime)
	// A sound row first, so that a verification shared too widely would
	// vouch for the corrupt rows after it.
	order := []string{triggerIDs[0], triggerIDs[2], triggerIDs[1], triggerIDs[3]}
	page := make([]schedule.CommitParams, len(order))
	for i, id := range order {
		tk, ok := tks[id]
		if !ok {
			t.Fatalf("trigger %s was not taken", id)
		}
		page[i] = params(t, tk)
	}
	for i, res := range commitPage(t, s.runtime, page) {
		corrupt := page[i].Ticket.TaskID == bad.task.TaskID
		switch {
		case corrupt && (res.Outcome != schedule.Failed || res.Reason != schedule.ReasonExecutionCorrupt):
			t.Errorf("row %d (corrupt plan): %s (%s) %v; want failed (%s)", i, res.Outcome, res.Reason, res.Err, schedule.ReasonExecutionCorrupt)
		case !corrupt && res.Outcome != schedule.Admitted:
			t.Errorf("row %d: %s (%s) %v; want admitted", i, res.Outcome, res.Reason, res.Err)
		}
	}
}

// TestRowsPinningTheSameExecutionRevisionShareThePagesOneCopy: the rows of
// a page that pin the same execution revision, stored alike to the byte,
// share one copy of it and its verification; a copy differing in any part,
// or pinned to another task digest, is its own and verified on its own;
// and without a page each row has its own copy, verified by the commit.
func TestRowsPinningTheSameExecutionRevisionShareThePagesOneCopy(t *testing.T) {
	t.Parallel()
	rev := task.Revision{ProjectID: ids.New(), TaskID: ids.New(), Revision: 3, ContentDigest: "sha256:task",
		Spec: task.Spec{Name: "job", Enabled: true}}
	e, err := task.PlanExecution(rev, task.RemoteWorker)
	if err != nil {
		t.Fatal(err)
	}
	d := newPageDefs()
	first, ok := d.execution(e, `{"argv":["true"]}`, rev.Revision, rev.ContentDigest)
	if !ok || first.ID != e.ID || first.Digest != e.Digest {
		t.Fatalf("a sound execution revision: %+v verified %v; want %+v verified", first, ok, e)
	}
	if again, ok := d.execution(e, `{"argv":["true"]}`, rev.Revision, rev.ContentDigest); again != first || !ok {
		t.Errorf("a second row pinning the same revision got copy %p verified %v; want the page's %p, verified", again, ok, first)
	}
	tampered := e
	tampered.Digest = "sha256:other"
	if other, ok := d.execution(tampered, `{"argv":["true"]}`, rev.Revision, rev.ContentDigest); other == first || ok || other.Digest != tampered.Digest {
		t.Errorf("a revision stored with another digest got copy %p (digest %s) verified %v; want its own, unverified", other, other.Digest, ok)
	}
	if other, _ := d.execution(e, `{"argv": ["true"]}`, rev.Revision, rev.ContentDigest); other == first {
		t.Error("a revision whose stored command differs in one byte shared the page's copy")
	}
	if other, ok := d.execution(e, `{"argv":["true"]}`, rev.Revision, "sha256:moved"); other == first || ok {
		t.Errorf("a revision pinned to another task digest got copy %p verified %v; want its own, unverified", other, ok)
	}
	var none *pageDefs
	a, okA := none.execution(e, "", rev.Revision, rev.ContentDigest)
	b, _ := none.execution(e, "", rev.Revision, rev.ContentDigest)
	if a == b || okA || !reflect.DeepEqual(*a, e) {
		t.Errorf("without a page: copies %p and %p, verified %v; want two copies of the revision, left to the commit to verify", a, b, okA)
	}
}
