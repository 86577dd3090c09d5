package workeringress

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/run"
)

// Output under the log cap reaches the stored log whole while a replica
// takes the worker's chunks, however much faster the command writes than
// the replica stores (here a replica that answers each chunk 20 ms late,
// and none for 1.5 s, longer than the worker waits for a chunk's answer
// before its next renewal, a second away under a 3 s lease): the worker
// slows the command down (its writes wait, as on a full pipe) instead of
// dropping what its bounded buffer cannot hold, and a chunk that got no
// answer in a moment's congestion is no outage. The output
// is larger than any buffer the worker keeps, so a worker that dropped
// instead of waiting leaves a gap, and the last line is lost.
func TestOutputUnderTheLogCapIsNeverDroppedWhileAReplicaTakesIt(t *testing.T) {
	t.Parallel()
	const logCap, written = 96 << 20, 70 << 20
	f := newFixture(t, Config{Settings: pgstore.WorkerSettings{RunLease: 3 * time.Second, LogCap: logCap}})
	f.admitDefinitions(t, f.rt, "flood", scriptTask("flood", fmt.Sprintf("head -c %d /dev/zero | tr '\\0' x\necho END", written)), 1, nil)
	p := newProxy(t, f.url, nil)
	p.logDelay.Store(int64(20 * time.Millisecond))
	logs := runWorker(t, p.url, f.worker(t, "flood"))
	eventually(t, time.Minute, "the output to flow", func() bool { return p.logs.Load() >= 5 })
	p.holdLogsUntil.Store(time.Now().Add(1500 * time.Millisecond).UnixNano())
	a := f.endedWithin(t, "flood", 5*time.Minute)
	l := f.log(t, a.id)
	switch {
	case a.state != "succeeded" || a.logTruncated:
		t.Fatalf("attempt %+v; want succeeded, its log not cut by the cap", a)
	case dropMarker.MatchString(l):
		t.Fatalf("the log of a healthy replica has a drop line: %q", dropMarker.FindString(l))
	case len(l) != written+len("END\n") || !strings.HasSuffix(l, "xEND\n"):
		t.Fatalf("the log holds %d bytes ending %q; want the %d bytes written and END", len(l), l[max(0, len(l)-100):], written)
	case strings.Contains(logs.String(), "attempt_output_dropped"):
		t.Fatalf("the worker says it dropped output:\n%s", logs.String())
	case !strings.Contains(logs.String(), `"code":"server_unreachable"`):
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
