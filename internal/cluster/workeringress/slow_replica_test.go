package workeringress

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/run"
)

// A replica that answers every request of an attempt a fifth of a lease
// late — its start, every renewal, every log chunk and the completion:
// 2.4 s at a 12 s lease — takes a command's output whole, in order and
// once each, keeps the lease all along, and records the completion,
// though the command writes for five leases and more. A renewal is due
// every third of a lease there: sent one at a time, a log chunk waited
// behind each renewal and was given only what was left before the next
// one, every chunk was cut before its answer, the worker dropped output
// (the log then holds a line saying so instead of the bytes), and the
// completion, given half of that, never arrived. The worker now renews on
// a schedule of its own beside its sends, and the replica takes a chunk
// or a completion of the lease's holder under the version a renewal just
// replaced. A renewal's send is awaited until the kill point, the
// renewal sent again beside it once half of that has passed: cut at that
// half instead, a renewal answered a little late on a loaded machine (past
// 3.1 s here) was sent again with ever less time, none enough for a
// replica taking 2.4 s, and the lease was lost, the replica answering all
// along.
// (At the shortest lease, 3 s and 0.6 s, a renewal has about a second to
// spare; the ratio is what the test is about, so it keeps it at a lease
// long enough that a stall of the machine is small beside its margin.)
func TestAReplicaSlowOnEveryRequestKeepsEveryByteTheLeaseAndTheCompletion(t *testing.T) {
	t.Parallel()
	const lines = 3000
	f := newFixture(t, Config{Settings: pgstore.WorkerSettings{RunLease: 12 * time.Second}})
	// At least 60 s of output, a line every 20 ms: five leases.
	f.admitDefinitions(t, f.rt, "slow", scriptTask("slow", fmt.Sprintf(`i=0
while [ $i -lt %d ]; do i=$((i+1)); echo "line $i"; sleep 0.02; done`, lines)), 1, nil)
	p := newProxy(t, f.url, nil)
	p.leaseDelay.Store(int64(2400 * time.Millisecond))
	p.logDelay.Store(int64(2400 * time.Millisecond))
	logs := runWorker(t, p.url, f.worker(t, "slow"))
	a := f.settledWithin(t, "slow", 4*time.Minute, logs)
	var want strings.Builder
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&want, "line %d\n", i)
	}
	l := f.log(t, a.id)
	said := logs.String()
	switch {
	case p.leaseSteps.Load() < 6 || p.logs.Load() < 6:
		t.Fatalf("the proxy held %d starts, renewals and completions and %d log chunks; want the slow replica to have answered several of each", p.leaseSteps.Load(), p.logs.Load())
	case a.state != "succeeded" || a.runState != "succeeded":
		t.Fatalf("attempt %+v; want it and its Run succeeded, the completion recorded\n%s", a, said)
	case l != want.String():
		t.Fatalf("the log holds %d bytes (drop line %q, tail %q); want the %d lines written, each once and in order\n%s",
			len(l), dropMarker.FindString(l), l[max(0, len(l)-200):], lines, said)
	case strings.Contains(said, "attempt_lease_lost") || strings.Contains(said, "attempt_output_dropped") || strings.Contains(said, "attempt_log_refused"):
		t.Fatalf("the worker lost its lease, dropped output or had a chunk refused:\n%s", said)
	}
}

// settledWithin waits until the attempt of project has ended, in any
// state, and returns it; at the timeout it fails saying the worker's
// log, which tells a lease lost (an attempt this fixture's replica never
// sweeps) from a completion that never arrived.
func (f *fixture) settledWithin(t *testing.T, project string, timeout time.Duration, logs fmt.Stringer) ended {
	t.Helper()
	var a ended
	deadline := time.Now().Add(timeout)
	for {
		err := f.env.Super.QueryRow(t.Context(), `SELECT a.id::text, a.state, coalesce(a.error_code, ''), coalesce(a.error_message, ''), r.state, a.log_truncated
			FROM qinglong.attempts a JOIN qinglong.runs r ON r.id = a.run_id JOIN qinglong.projects p ON p.id = r.project_id
			WHERE p.name = $1`, project).Scan(&a.id, &a.state, &a.errorCode, &a.errorMessage, &a.runState, &a.logTruncated)
		if err != nil {
			t.Fatal(err)
		}
		if run.AttemptState(a.state).Terminal() {
			return a
		}
		if time.Now().After(deadline) {
			t.Fatalf("the attempt is still %s after %s; the worker said:\n%s", a.state, timeout, logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
