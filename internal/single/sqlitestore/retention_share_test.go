package sqlitestore

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/retention"
)

// A backlog of expired Runs larger than a pass deletes (a year of history
// on the first pass of a moved installation) does not keep the log cap
// from its batches: every rule runs in every pass, so the logs over the
// cap go while the Runs are still being deleted, pass after pass.
func TestABacklogOfExpiredRunsDoesNotKeepTheLogCapFromItsWork(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newEnv(t)
	f := e.fixture()
	d := e.defs(t, "alpha", everyMinute)
	e.take(t, 1)
	template := e.admit(t, d.Trigger.TriggerID)
	const block = retention.LogBlockBytes
	if _, err := f.SeedFinished(ctx, template, 20, e.clock.NowMs()-(40*retention.Day).Milliseconds(), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.SeedFinished(ctx, template, 4, e.clock.NowMs()-time.Hour.Milliseconds(), block); err != nil {
		t.Fatal(err)
	}
	// A budget spent before the first batch: each rule gets the one
	// batch every rule runs.
	rep, err := retention.Pass(ctx, f.Retention, retention.Policy{RunsAge: 30 * retention.Day, LogBytes: 2 * block},
		retention.Options{BatchSize: 2, Share: 1, Budget: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.More || rep.ByKind[retention.KindRuns].Runs != 2 {
		t.Fatalf("the runs rule deleted %+v (more: %v); want one batch of 2 of the 20 expired Runs, the rest left", rep.ByKind[retention.KindRuns], rep.More)
	}
	if got := rep.ByKind[retention.KindLogBytes]; got.Logs != 2 || got.LogBytes != 2*block {
		t.Errorf("the log cap deleted %+v behind the backlog of Runs; want the 2 logs over it", got)
	}
}
