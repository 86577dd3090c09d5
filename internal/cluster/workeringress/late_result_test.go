package workeringress

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// unreachableFor is how long the replica answers every worker request 503
// once the command was told to end.
const unreachableFor = 1500 * time.Millisecond

// A worker whose replica cannot take its report when its command ends
// (503 unavailable, as while the replica re-activates its database) sends
// it again until the replica takes it, each send saying how long ago the
// command ended: the attempt and its Run finish when the command ended,
// not when the report was taken.
func TestAResultTheReplicaTookLateKeepsTheTimeItsCommandEnded(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	dir := t.TempDir()
	runWorker(t, f.url, f.worker(t, "late"))
	f.admitDefinitions(t, f.rt, "late", scriptTask("late", fmt.Sprintf("while [ ! -e %s/go ]; do sleep 0.05; done", dir)), 1, f.h.Wake)
	eventually(t, 20*time.Second, "the command to run", func() bool {
		_, state, _, _ := f.runOf(t, "late")
		return state == "running"
	})
	f.ready.Store(false)
	told := f.now(t)
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(unreachableFor)
	f.ready.Store(true)
	a := f.ended(t, "late")
	var finished, runFinished int64
	if err := f.env.Super.QueryRow(t.Context(), `SELECT a.finished_at_ms, r.finished_at_ms FROM qinglong.attempts a
		JOIN qinglong.runs r ON r.id = a.run_id WHERE a.id = $1`, a.id).Scan(&finished, &runFinished); err != nil {
		t.Fatal(err)
	}
	if a.state != "succeeded" || finished < told || finished-told >= (unreachableFor/2).Milliseconds() || runFinished != finished {
		t.Fatalf("attempt %s finished %d ms after the command was told to end, its Run at %d (attempt at %d); want succeeded within %s, not when the replica took the report %s later",
			a.state, finished-told, runFinished, finished, unreachableFor/2, unreachableFor)
	}
}
