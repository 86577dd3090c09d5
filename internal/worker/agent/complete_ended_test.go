package agent

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// unreachableSends is how many completion sends these tests answer 503
// before the replica takes one.
const unreachableSends = 3

// A completion the worker could deliver only late says, at each send, how
// long before it the command ended, counted again for every send (the
// client's own retries after a 503 included), so the replica records the
// command's end however late the report reaches it.
func TestEachSendOfACompletionSaysHowLongAgoItsCommandEnded(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	in.completeDown = unreachableSends
	g := in.enqueue(t, shell(`true`))
	runAgent(t, in, nil)
	done := in.completed(g.AttemptID)
	in.mu.Lock()
	sent := append([]int64(nil), in.endedAgoSent...)
	in.mu.Unlock()
	if len(sent) != unreachableSends+1 || done.EndedMsAgo != sent[len(sent)-1] {
		t.Fatalf("completion sends said the command ended %v ms ago, the one taken %d; want %d sends, the last one taken", sent, done.EndedMsAgo, unreachableSends+1)
	}
	for i := 1; i < len(sent); i++ {
		// The client waits at least half its least backoff between sends.
		if sent[i]-sent[i-1] < (backoffMin / 2).Milliseconds() {
			t.Fatalf("completion sends said the command ended %v ms ago; want each send to count again from the command's end", sent)
		}
	}
}

// A replica older than EndedMsAgo refuses it as a field it does not know;
// the worker sends the completion again without it, and the replica then
// records the end when it accepts the report, as before the field.
func TestAReplicaOlderThanEndedMsAgoStillGetsTheCompletion(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	in.beforeSignal = true
	in.completeDown = 1
	g := in.enqueue(t, shell(`sleep 0.2; exit 3`))
	runAgent(t, in, nil)
	done := in.completed(g.AttemptID)
	if done.Outcome != workerproto.OutcomeExited || done.ExitCode == nil || *done.ExitCode != 3 || done.EndedMsAgo != 0 {
		t.Fatalf("completion %+v; want exited 3, without endedMsAgo", done)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.refusedSignal != 1 {
		t.Fatalf("%d completions refused for a field the replica does not know; want the one that said when the command ended", in.refusedSignal)
	}
}
