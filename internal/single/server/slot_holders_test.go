package server

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// A queued Run waiting for a busy server's slot names the triggers whose
// Runs hold them, most first, with how many each holds: the top
// run.MaxSlotHolders, then how many other triggers hold one, so that a
// team starved by another's runaway trigger sees which one it is.
func TestAQueuedRunWaitingForASlotNamesTheTriggersHoldingTheSlots(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	triggers := map[string]string{}
	for _, name := range []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"} {
		triggers[name] = publishEveryMinuteTick(t, dir, name).TriggerID
	}
	b, err := OpenBackend(t.Context(), LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	runNow := func(project string) string {
		res, err := b.Store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: triggers[project], RequestID: ids.New(), Actor: "test"})
		if err != nil || !res.Created {
			t.Fatalf("run %s/tick now: %+v, %v", project, res, err)
		}
		return res.RunID
	}
	// delta's three, bravo's two, then one each of alpha, charlie and echo
	// fill eight slots; foxtrot's Run waits for one.
	for _, project := range []string{"delta", "delta", "delta", "bravo", "bravo", "alpha", "charlie", "echo"} {
		runNow(project)
	}
	waiting := runNow("foxtrot")
	pending, err := b.Store.AttemptsPending(t.Context(), 8)
	if err != nil || len(pending) != 8 {
		t.Fatalf("pending: %d, %v; want the eight holders' attempts", len(pending), err)
	}
	for _, a := range pending {
		if _, _, _, err := b.Store.AttemptStart(t.Context(), a.ID, "owner-1", ""); err != nil {
			t.Fatal(err)
		}
	}
	d, err := servedRuns{Reader: b.Store, concurrency: 8}.RunGet(t.Context(), waiting)
	if err != nil {
		t.Fatal(err)
	}
	w := d.Waiting
	want := []run.SlotHolder{{TriggerID: triggers["delta"], Project: "delta", Trigger: "tick", Runs: 3},
		{TriggerID: triggers["bravo"], Project: "bravo", Trigger: "tick", Runs: 2}, {TriggerID: triggers["alpha"], Project: "alpha", Trigger: "tick", Runs: 1}}
	if w == nil || w.Reason != run.WaitServerBusy || len(w.Holders) != len(want) || w.MoreHolders != 2 {
		t.Fatalf("foxtrot's Run waits %+v; want %s held by %+v and 2 more triggers", w, run.WaitServerBusy, want)
	}
	for i := range want {
		if w.Holders[i] != want[i] {
			t.Fatalf("holder %d is %+v; want %+v (all: %+v)", i, w.Holders[i], want[i], w.Holders)
		}
	}
	if msg := w.Message(); !strings.HasSuffix(msg, "; the slots are held by Runs of delta/tick (3), bravo/tick (2), alpha/tick (1) and 2 more triggers") {
		t.Fatalf("the message does not name the holders: %q", msg)
	}
}
