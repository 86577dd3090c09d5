package server

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// A server says a queued Run waits for a slot only when the Runs holding
// one fill all its --concurrency: with N running and a concurrency of N it
// says server_busy with both numbers, and with a slot free it says
// server_starting with both, since its next dispatch starts the Run.
func TestAServerSaysAQueuedRunWaitsItsTurnOnlyWhileItsConcurrencyIsReached(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	tg := publish(t, dir, 1, "true")[0]
	b, err := OpenBackend(t.Context(), LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var runs []string
	for range 3 {
		res, err := b.Store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: tg.TriggerID, RequestID: ids.New(), Actor: "test"})
		if err != nil || !res.Created {
			t.Fatalf("run now: %+v, %v", res, err)
		}
		runs = append(runs, res.RunID)
	}
	pending, err := b.Store.AttemptsPending(t.Context(), 2)
	if err != nil || len(pending) != 2 {
		t.Fatalf("pending: %+v, %v; want the first two Runs' attempts", pending, err)
	}
	for _, a := range pending {
		if _, _, _, err := b.Store.AttemptStart(t.Context(), a.ID, "owner-1", ""); err != nil {
			t.Fatal(err)
		}
	}
	full, err := servedRuns{Reader: b.Store, concurrency: 2}.RunGet(t.Context(), runs[2])
	if err != nil {
		t.Fatal(err)
	}
	if w := full.Waiting; w == nil || w.Reason != run.WaitServerBusy || w.Running != 2 || w.Concurrency != 2 ||
		!strings.Contains(w.Message(), "it waits its turn: 2 of 2 commands running") {
		t.Fatalf("with 2 running and a concurrency of 2, the Run waits %+v; want %s, 2 of 2", w, run.WaitServerBusy)
	}
	free, err := servedRuns{Reader: b.Store, concurrency: 3}.RunGet(t.Context(), runs[2])
	if err != nil {
		t.Fatal(err)
	}
	if w := free.Waiting; w == nil || w.Reason != run.WaitServerStarting || w.Running != 2 || w.Concurrency != 3 ||
		w.Message() != "the server starts it in a moment (2 of 3 running)" {
		t.Fatalf("with 2 running and a concurrency of 3, the Run waits %+v; want %s, 2 of 3", w, run.WaitServerStarting)
	}
}
