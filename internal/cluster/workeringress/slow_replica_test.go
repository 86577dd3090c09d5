package workeringress

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
)

// A replica that answers every request of an attempt 0.6 s late — its
// start, every renewal, every log chunk and the completion — at the
// shortest lease (3 s) takes a command's output whole, in order and once
// each, keeps the lease all along, and records the completion, though the
// command writes for five leases and more. A renewal is due every second
// there: sent one at a time, a log chunk waited behind each renewal and
// was given only what was left before the next one (0.4 s), every chunk
// was cut before its answer, the worker dropped output after 5 s (the log
// then holds a line saying so instead of the bytes), and the completion,
// given half of that, never arrived. The worker now renews on a schedule
// of its own beside its sends, and the replica takes a chunk or a
// completion of the lease's holder under the version a renewal just
// replaced.
func TestAReplicaSlowOnEveryRequestKeepsEveryByteTheLeaseAndTheCompletion(t *testing.T) {
	t.Parallel()
	const lines = 1500
	f := newFixture(t, Config{Settings: pgstore.WorkerSettings{RunLease: 3 * time.Second}})
	// At least 15 s of output, a line every 10 ms: five leases.
	f.admitDefinitions(t, f.rt, "slow", scriptTask("slow", fmt.Sprintf(`i=0
while [ $i -lt %d ]; do i=$((i+1)); echo "line $i"; sleep 0.01; done`, lines)), 1, nil)
	p := newProxy(t, f.url, nil)
	p.leaseDelay.Store(int64(600 * time.Millisecond))
	p.logDelay.Store(int64(600 * time.Millisecond))
	logs := runWorker(t, p.url, f.worker(t, "slow"))
	a := f.endedWithin(t, "slow", 3*time.Minute)
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
