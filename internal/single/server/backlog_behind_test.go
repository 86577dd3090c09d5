package server

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/view"
)

// A trigger whose Runs queue while another trigger's Runs hold every slot
// is warned of a backlog that names that trigger and says to pause it; the
// trigger holding its own slots keeps the advice to raise the server's --concurrency or
// skip the overlap.
func TestABacklogQueuedBehindAnotherTriggersRunsNamesThatTrigger(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	delta := publishEveryMinuteTick(t, dir, "delta").TriggerID
	bravo := publishEveryMinuteTick(t, dir, "bravo").TriggerID
	b, err := OpenBackend(t.Context(), LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	runNow := func(id string, n int) {
		for range n {
			res, err := b.Store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: id, RequestID: ids.New(), Actor: "test"})
			if err != nil || !res.Created {
				t.Fatalf("run now: %+v, %v", res, err)
			}
		}
	}
	// delta's first two Runs take both slots; its next ten and bravo's
	// ten queue.
	runNow(delta, 2)
	pending, err := b.Store.AttemptsPending(t.Context(), 2)
	if err != nil || len(pending) != 2 {
		t.Fatalf("pending: %d, %v; want delta's two", len(pending), err)
	}
	for _, a := range pending {
		if _, _, _, err := b.Store.AttemptStart(t.Context(), a.ID, "owner-1", ""); err != nil {
			t.Fatal(err)
		}
	}
	runNow(delta, view.BacklogAt)
	runNow(bravo, view.BacklogAt)
	last, err := b.Store.RunsLast(t.Context(), []string{delta, bravo})
	if err != nil {
		t.Fatal(err)
	}
	cron := view.Cron{Overlap: "allow"}
	victim := view.WarningsOf(cron, last[bravo])
	want := "backlog: 10 Runs queued behind delta/tick's 2 running; pause that trigger (`ql triggers pause delta/tick`) or raise the server's --concurrency"
	if len(victim) != 1 || victim[0].Message != want {
		t.Fatalf("bravo's warnings: %+v; want %q", victim, want)
	}
	own := view.WarningsOf(cron, last[delta])
	if len(own) != 1 || !strings.HasSuffix(own[0].Message, "queued; raise the server's --concurrency, or set overlap: skip so that an occurrence due while one runs gets no Run") {
		t.Fatalf("delta's warnings: %+v; want today's advice, since delta holds the slots", own)
	}
}
