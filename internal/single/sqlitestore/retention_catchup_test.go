package sqlitestore

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/retention"
)

// batchLog records what every batch of a pass deleted, one write
// transaction each.
type batchLog struct {
	retention.Store
	deleted []retention.Deleted
}

func (l *batchLog) RetentionBatch(ctx context.Context, b retention.Batch) (retention.Result, error) {
	res, err := l.Store.RetentionBatch(ctx, b)
	l.deleted = append(l.deleted, res.Deleted)
	return res, err
}

// Batches grow while they are quick, for every rule, but never past
// MaxBatchSize: an admission waits for one batch at most, and a batch
// (one write transaction) deletes at most MaxBatchSize Runs, or logs.
func TestAnAdmissionWaitsForOneBatchOfAtMostMaxBatchSizeRunsOrLogs(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newEnv(t)
	f := e.fixture()
	d := e.defs(t, "alpha", everyMinute)
	e.take(t, 1)
	template := e.admit(t, d.Trigger.TriggerID)
	if _, err := f.SeedFinished(ctx, template, 400, e.clock.NowMs()-(40*retention.Day).Milliseconds(), 10); err != nil {
		t.Fatal(err)
	}
	if _, err := f.SeedFinished(ctx, template, 400, e.clock.NowMs()-(10*retention.Day).Milliseconds(), 10); err != nil {
		t.Fatal(err)
	}
	const most = 64
	l := &batchLog{Store: f.Retention}
	// A target no batch reaches: every batch doubles the next, to the bound.
	rep, err := retention.Pass(ctx, l, retention.Policy{RunsAge: 30 * retention.Day, LogsAge: 7 * retention.Day},
		retention.Options{BatchSize: 4, MaxBatchSize: most, BatchTarget: time.Hour, Share: 1, Budget: time.Hour})
	if err != nil || rep.ByKind[retention.KindRuns].Runs != 400 || rep.ByKind[retention.KindLogs].Logs != 400 {
		t.Fatalf("the pass deleted %+v, %v; want the 400 expired Runs and the 400 old logs", rep.ByKind, err)
	}
	var grewRuns, grewLogs bool
	for i, del := range l.deleted {
		if del.Runs > most || del.Logs > most {
			t.Fatalf("batch %d deleted %d Runs and %d logs in one transaction; want at most %d", i, del.Runs, del.Logs, most)
		}
		grewRuns = grewRuns || del.Runs == most
		grewLogs = grewLogs || (del.Runs == 0 && del.Logs == most)
	}
	if !grewRuns || !grewLogs {
		t.Fatalf("the runs rule's and the logs rule's batches grew to %d: %v, %v; want both", most, grewRuns, grewLogs)
	}
}

// A pass paces its batches at the catch-up share only while no other
// writer of the process holds the writer: a batch after another writer
// held it for the whole gap is not idle, one after a gap nothing wrote in
// is.
func TestRetentionCatchesUpOnlyWhileNothingElseHoldsTheWriter(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newEnv(t)
	f := e.fixture()
	d := e.defs(t, "alpha", everyMinute)
	e.take(t, 1)
	template := e.admit(t, d.Trigger.TriggerID)
	if _, err := f.SeedFinished(ctx, template, 8, e.clock.NowMs()-(40*retention.Day).Milliseconds(), 0); err != nil {
		t.Fatal(err)
	}
	r := e.store.Retention(e.logDir())
	batch := func() retention.Result {
		t.Helper()
		res, err := r.RetentionBatch(ctx, retention.Batch{Kind: retention.KindRuns, OlderThan: 30 * retention.Day, Limit: 1})
		if err != nil || res.Deleted.Runs != 1 {
			t.Fatalf("a batch: %+v, %v", res, err)
		}
		return res
	}
	if batch().Idle {
		t.Fatal("a pass's first batch counts as idle; want it paced at the share until the writer is known idle")
	}
	// Another writer holds the writer for the whole gap.
	if err := e.store.write(ctx, "test hold", routine, func(*txn) error {
		time.Sleep(20 * time.Millisecond)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if batch().Idle {
		t.Fatal("a batch after another writer held the writer throughout counts as idle")
	}
	// A gap long beside a batch's own begin and commit, which count as
	// another writer's time.
	time.Sleep(100 * time.Millisecond)
	if !batch().Idle {
		t.Fatal("a batch after a gap nothing wrote in does not count as idle")
	}
}

// A backlog goes in passes that each go on at once while there is more
// (the serving loop's next pass), and stop when nothing expired is left:
// the expired Runs and their logs are gone, the Runs within the age and
// the one still running stay with their logs, and every attempt left
// points to its log.
func TestCatchUpStopsWhenNothingIsLeftAndKeepsWhatTheRulesKeep(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newEnv(t)
	f := e.fixture()
	d := e.defs(t, "alpha", everyMinute)
	e.take(t, 1)
	template := e.admit(t, d.Trigger.TriggerID)
	expired, err := f.SeedFinished(ctx, template, 700, e.clock.NowMs()-(40*retention.Day).Milliseconds(), 10)
	if err != nil {
		t.Fatal(err)
	}
	young, err := f.SeedFinished(ctx, template, 30, e.clock.NowMs()-(2*retention.Day).Milliseconds(), 10)
	if err != nil {
		t.Fatal(err)
	}
	running := filepath.Join(e.logDir(), attemptOf(t, e, template)+".log")
	if err := os.WriteFile(running, []byte("still writing"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := e.tamper(ctx, `UPDATE runs SET state = 'running', finished_at_ms = NULL WHERE id = ?1;
		UPDATE attempts SET state = 'running', owner = 'test', log_path = ?2, started_at_ms = ?3 - ?4, finished_at_ms = NULL WHERE run_id = ?1`,
		template, running, e.clock.NowMs(), (60 * retention.Day).Milliseconds()); err != nil {
		t.Fatal(err)
	}
	o := RetentionOptions
	o.Budget = time.Millisecond
	policy := retention.Policy{RunsAge: 30 * retention.Day, LogsAge: 7 * retention.Day}
	passes := 0
	for more := true; more; passes++ {
		if passes > 700 {
			t.Fatal("the passes went on after 700: catch-up does not stop")
		}
		rep, err := retention.Pass(ctx, f.Retention, policy, o)
		if err != nil {
			t.Fatal(err)
		}
		more = rep.More
	}
	if passes < 2 {
		t.Fatalf("the backlog went in %d pass; want several, each going on at once", passes)
	}
	rep, err := retention.Pass(ctx, f.Retention, policy, o)
	if err != nil || rep.More || rep.Total != (retention.Deleted{}) {
		t.Fatalf("a pass after catch-up: %+v, %v; want nothing deleted and nothing more", rep, err)
	}
	for _, id := range expired {
		if _, err := e.store.RunGet(ctx, id); !qlerror.Is(err, qlerror.NotFound) {
			t.Fatalf("expired Run %s after catch-up: %v; want it deleted", id, err)
		}
	}
	for _, id := range append(young, template) {
		has, err := f.HasLog(ctx, attemptOf(t, e, id))
		if err != nil || !has {
			t.Fatalf("kept Run %s: its log there %v, %v; want the Run and its log kept", id, has, err)
		}
	}
	logs, err := filepath.Glob(filepath.Join(e.logDir(), "*.log"))
	if err != nil || len(logs) != len(young)+1 {
		t.Fatalf("%d log files left, %v; want the %d kept Runs' only", len(logs), err, len(young)+1)
	}
}
