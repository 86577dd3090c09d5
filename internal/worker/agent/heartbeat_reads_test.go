package agent

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// A worker that an older replica registered without the grant fields it
// reads names them at its heartbeats, each refused by the older replica
// and sent again without them, so its session lives on; once an upgraded
// replica answers in its place (a rolling upgrade of the replicas under a
// running worker), the first heartbeat it takes keeps them, and the
// worker stops naming them, never registering again.
func TestAWorkerAnOlderReplicaRegisteredSaysItsReadsAtItsHeartbeatsUntilAnUpgradedReplicaKeepsThem(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	in.beforeReads = true
	r := runAgent(t, in, func(c *Config) { c.heartbeatEvery = 20 * time.Millisecond })
	heartbeats := func() ([][]string, int) {
		in.mu.Lock()
		defer in.mu.Unlock()
		return slices.Clone(in.heartbeatReads), in.refusedHeartbeats
	}
	waitFor(t, "two heartbeats the older replica took", func() bool {
		taken, refused := heartbeats()
		return len(taken) >= 2 && refused >= 2
	})
	if taken, _ := heartbeats(); slices.ContainsFunc(taken, func(reads []string) bool { return reads != nil }) {
		t.Fatalf("the older replica took a heartbeat naming reads: %q", taken)
	}
	in.mu.Lock()
	in.beforeReads = false
	upgradedFrom := len(in.heartbeatReads)
	in.mu.Unlock()
	kept := func(taken [][]string) int {
		return slices.IndexFunc(taken[upgradedFrom:], func(reads []string) bool { return reads != nil })
	}
	waitFor(t, "the upgraded replica to take a heartbeat naming reads, then two more", func() bool {
		taken, _ := heartbeats()
		at := kept(taken)
		return at >= 0 && len(taken) >= upgradedFrom+at+3
	})
	taken, _ := heartbeats()
	at := upgradedFrom + kept(taken)
	if !slices.Equal(taken[at], workerproto.Reads()) {
		t.Fatalf("the upgraded replica's heartbeat read %q, want %q", taken[at], workerproto.Reads())
	}
	for i, reads := range taken[at+1:] {
		if reads != nil {
			t.Fatalf("heartbeat %d after the reads were kept still names them: %q", i+1, reads)
		}
	}
	in.mu.Lock()
	registers := in.registers
	in.mu.Unlock()
	if registers != 1 {
		t.Fatalf("%d registrations, want 1: the reads are kept without registering again", registers)
	}
	logs := r.logs.String()
	if !strings.Contains(logs, `"code":"worker_reads_unkept"`) || !strings.Contains(logs, `"code":"worker_reads_kept"`) {
		t.Fatalf("the worker's log does not say its reads were not kept, then kept:\n%s", logs)
	}
}
