package workeringress

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/run"
)

// outputStallAfter is how long a worker waits for a replica to take a log
// chunk before it drops output that does not fit in its buffer (the
// agent's own bound of the name, docs/guarantees.md).
const outputStallAfter = 5 * time.Second

// Output under the log cap reaches the stored log whole while a replica
// takes the worker's chunks, however much faster the command writes than
// the replica stores (here a replica that answers each chunk 20 ms late,
// and for a moment none, each held until the worker gives it up, until it
// gave up one sent after a renewal: up to the lease's kill point, more
// than two seconds under a 3 s lease, the renewals answered meanwhile): the
// worker slows the command down (its writes wait, as on a full pipe) instead of
// dropping what its bounded buffer cannot hold, and chunks that got no
// answer in a moment's congestion are no outage. The output is larger
// than any buffer the worker keeps, so a worker that dropped instead of
// waiting leaves a gap, and the last line is lost.
//
// A replica takes the chunks in time only while this machine lets it: on
// one so loaded that the worker went outputStallAfter without hearing of
// a chunk taken (as the proxy's record of the attempt's sends bounds it),
// the worker may drop, and then the log must account for every byte.
func TestOutputUnderTheLogCapIsNeverDroppedWhileAReplicaTakesIt(t *testing.T) {
	t.Parallel()
	const logCap, written = 96 << 20, 70 << 20
	f := newFixture(t, Config{Settings: pgstore.WorkerSettings{RunLease: 3 * time.Second, LogCap: logCap}})
	f.admitDefinitions(t, f.rt, "flood", scriptTask("flood", fmt.Sprintf("head -c %d /dev/zero | tr '\\0' x\necho END", written)), 1, nil)
	p := newProxy(t, f.url, nil)
	p.logDelay.Store(int64(20 * time.Millisecond))
	logs := runWorker(t, p.url, f.worker(t, "flood"))
	eventually(t, time.Minute, "the output to flow", func() bool { return p.logs.Load() >= 5 })
	p.holdLogs.Store(true)
	a := f.endedWithin(t, "flood", 5*time.Minute)
	l := f.log(t, a.id)
	if untaken := p.sends.longestUntaken(); untaken >= outputStallAfter {
		t.Logf("this machine kept the replica from taking a chunk for %s, past the worker's %s: it may drop, and every byte must be accounted for", untaken, outputStallAfter)
		kept := len(dropMarker.ReplaceAllString(l, ""))
		if _, dropped := dropCount(l); a.state != "succeeded" || kept+dropped != written+len("END\n") {
			t.Fatalf("attempt %+v; its log holds %d bytes of output and its markers count %d dropped; %d were written", a, kept, dropped, written+len("END\n"))
		}
		return
	}
	switch {
	case a.state != "succeeded" || a.logTruncated:
		t.Fatalf("attempt %+v; want succeeded, its log not cut by the cap", a)
	case dropMarker.MatchString(l):
		t.Fatalf("the log of a healthy replica has a drop line (the worker heard of a chunk taken at least every %s): %q", p.sends.longestUntaken(), dropMarker.FindString(l))
	case len(l) != written+len("END\n") || !strings.HasSuffix(l, "xEND\n"):
		t.Fatalf("the log holds %d bytes ending %q; want the %d bytes written and END", len(l), l[max(0, len(l)-100):], written)
	case strings.Contains(logs.String(), "attempt_output_dropped"):
		t.Fatalf("the worker says it dropped output:\n%s", logs.String())
	case p.heldGivenUp.Load() == 0:
		t.Fatalf("the worker never gave up a held log request:\n%s", logs.String())
	}
}

// Output past the log cap leaves only the replica's cap marker, however
// fast it comes (here to a replica that answers each chunk 20 ms late):
// the worker, whose replica is healthy, never reports a drop of its own
// before it.
func TestOutputPastTheLogCapLeavesOnlyTheCapMarker(t *testing.T) {
	t.Parallel()
	const logCap, written = 64 << 10, 4 << 20
	f := newFixture(t, Config{Settings: pgstore.WorkerSettings{RunLease: 30 * time.Second, LogCap: logCap}})
	f.admitDefinitions(t, f.rt, "capped", scriptTask("capped", fmt.Sprintf("head -c %d /dev/zero | tr '\\0' x\necho END", written)), 1, nil)
	p := newProxy(t, f.url, nil)
	p.logDelay.Store(int64(20 * time.Millisecond))
	logs := runWorker(t, p.url, f.worker(t, "capped"))
	a := f.endedWithin(t, "capped", time.Minute)
	l := f.log(t, a.id)
	marker := string(run.TruncationMarker(logCap))
	switch {
	case a.state != "succeeded" || !a.logTruncated:
		t.Fatalf("attempt %+v; want succeeded, its log cut by the cap", a)
	case dropMarker.MatchString(l):
		t.Fatalf("the log of a healthy replica has a drop line before the cap's: %q", dropMarker.FindString(l))
	case !strings.HasSuffix(l, marker) || strings.Count(l, "x") != logCap:
		t.Fatalf("the log (%d bytes, %d of output) ends %q; want the cap's %d bytes of output, then only its marker", len(l), strings.Count(l, "x"), l[max(0, len(l)-200):], logCap)
	case strings.Contains(logs.String(), "attempt_output_dropped"):
		t.Fatalf("the worker says it dropped output:\n%s", logs.String())
	}
}
