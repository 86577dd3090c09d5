package pgstore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
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
