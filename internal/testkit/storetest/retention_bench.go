package storetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// EnvRetentionBacklog sizes BenchAdmissionUnderRetention's backlog of old
// finished Runs (default DefaultRetentionBacklog).
const EnvRetentionBacklog = "QL_BENCH_RETENTION_BACKLOG"

// DefaultRetentionBacklog is the backlog a plain `go test -bench` seeds:
// small enough to seed in seconds on a shared machine. Set
// QL_BENCH_RETENTION_BACKLOG=1000000 for the full backlog.
const DefaultRetentionBacklog = 100_000

// benchPage is how many triggers one measured round admits, as one page.
const benchPage = 64

// blockRounds is how many rounds one block of a pair measures: long
// enough for several of a pass's batch-and-pause cycles.
const blockRounds = 4

// RetentionPacing is one pacing BenchAdmissionUnderRetention measures.
type RetentionPacing struct {
	// Name prefixes the pacing's reported metrics.
	Name string
	// Store deletes (nil: the fixture's Retention).
	Store   retention.Store
	Options retention.Options
}

// BenchAdmissionUnderRetention measures the admission rate (a page of 64
// due triggers taken, decided and committed as one page, as a scheduler
// round does) while retention deletes a backlog of old finished Runs, and
// without retention, over one seeded backlog. Each iteration is one set
// of blocks of blockRounds rounds: one without retention and one per
// pacing with a pass under that pacing deleting, in an order that rotates
// from one iteration to the next, so every block sees the machine its
// neighbours see. A pass starts with its block (its first batch at once,
// the pacing's least favourable moment) and stops, after the batch in
// flight, when the block's rounds are done.
//
// Per pacing it reports the median of the iterations' ratios (with/without:
// the with block's admission rate over the same iteration's block without;
// 1 means retention costs admission nothing), their quartiles, the ratio of
// all rounds together and the Runs deleted per second of its blocks.
func BenchAdmissionUnderRetention(b *testing.B, f Fixture, pacings ...RetentionPacing) {
	ctx := context.Background()
	backlog := DefaultRetentionBacklog
	if v := os.Getenv(EnvRetentionBacklog); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("%s=%q is not a positive number", EnvRetentionBacklog, v)
		}
		backlog = n
	}
	var triggers []string
	for i := range benchPage {
		d := newDefs(b, f, fmt.Sprintf("bench%02d", i), quietCron(b, f))
		triggers = append(triggers, d.Trigger.TriggerID)
	}
	initialise(b, f)
	template := admitNow(b, f, triggers[0], 1_000)
	start := time.Now()
	for seeded := 0; seeded < backlog; seeded += 10_000 {
		if _, err := f.SeedFinished(ctx, template, min(10_000, backlog-seeded), now(b, f)-(40*retention.Day).Milliseconds(), 64); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded %d finished runs in %s", backlog, time.Since(start).Round(time.Millisecond))

	gate := &batchGate{Store: f.Retention}
	type tally struct {
		ratios      []float64
		took        time.Duration
		deletingFor time.Duration
		deleted     int64
		withoutTook time.Duration
	}
	tallies := make([]tally, len(pacings))
	// block -1 is the one without retention.
	order := make([]int, len(pacings)+1)
	for i := range order {
		order[i] = i - 1
	}
	for iter := 0; b.Loop(); iter++ {
		took := make([]time.Duration, len(order))
		for k := range order {
			p := order[(k+iter)%len(order)]
			if p < 0 {
				took[0] = admitBlock(b, f, triggers)
				continue
			}
			began := time.Now()
			gate.Store = f.Retention
			if pacings[p].Store != nil {
				gate.Store = pacings[p].Store
			}
			stop := gate.run(ctx, b, pacings[p].Options)
			took[p+1] = admitBlock(b, f, triggers)
			deleted := stop()
			t := &tallies[p]
			t.took += took[p+1]
			t.deletingFor += time.Since(began)
			t.deleted += deleted
		}
		for p := range pacings {
			t := &tallies[p]
			t.ratios = append(t.ratios, took[0].Seconds()/took[p+1].Seconds())
			t.withoutTook += took[0]
		}
	}
	b.StopTimer()
	for p, pc := range pacings {
		t := tallies[p]
		slices.Sort(t.ratios)
		if t.deleted == 0 {
			b.Fatalf("%s: retention deleted nothing while admissions were measured", pc.Name)
		}
		b.ReportMetric(quantile(t.ratios, 0.5), pc.Name+"-median")
		b.ReportMetric(quantile(t.ratios, 0.25), pc.Name+"-p25")
		b.ReportMetric(quantile(t.ratios, 0.75), pc.Name+"-p75")
		b.ReportMetric(t.withoutTook.Seconds()/t.took.Seconds(), pc.Name+"-all")
		b.ReportMetric(float64(t.deleted)/t.deletingFor.Seconds(), pc.Name+"-deleted/s")
	}
	if len(pacings) > 0 {
		b.ReportMetric(float64(blockRounds*benchPage*b.N)/tallies[0].withoutTook.Seconds(), "admissions/s-without")
	}
}

// quantile of sorted xs, interpolated.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	pos := q * float64(len(xs)-1)
	i := int(pos)
	if i+1 >= len(xs) {
		return xs[i]
	}
	return xs[i] + (pos-float64(i))*(xs[i+1]-xs[i])
}

func admitBlock(b *testing.B, f Fixture, triggers []string) time.Duration {
	var took time.Duration
	for range blockRounds {
		took += admitRound(b, f, triggers)
	}
	return took
}

// errBlockOver ends a pass whose block is done.
var errBlockOver = errors.New("the block is over")

// batchGate runs a pass over a store and stops it between two batches:
// the batch in flight finishes, no next one starts.
type batchGate struct {
	retention.Store
	mu      sync.Mutex
	stopped bool
	deleted int64
}

func (g *batchGate) RetentionBatch(ctx context.Context, bt retention.Batch) (retention.Result, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return retention.Result{}, errBlockOver
	}
	res, err := g.Store.RetentionBatch(ctx, bt)
	g.deleted += res.Deleted.Runs
	return res, err
}

// run starts a pass under o; the function it returns stops it and
// returns the Runs it deleted.
func (g *batchGate) run(ctx context.Context, b *testing.B, o retention.Options) func() int64 {
	g.mu.Lock()
	g.stopped, g.deleted = false, 0
	g.mu.Unlock()
	o.Budget = time.Hour
	passCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := retention.Pass(passCtx, g, retention.Policy{RunsAge: 30 * retention.Day}, o)
		switch {
		case err == nil:
			b.Error("retention deleted the whole backlog while admissions were measured: seed a larger one")
		case !errors.Is(err, errBlockOver) && passCtx.Err() == nil:
			b.Error(err)
		}
	}()
	return func() int64 {
		g.mu.Lock()
		g.stopped = true
		deleted := g.deleted
		g.mu.Unlock()
		cancel()
		<-done
		return deleted
	}
}

// admitRound makes every trigger due, then times one page: take, decide,
// commit.
func admitRound(b *testing.B, f Fixture, triggers []string) time.Duration {
	makeAllDue(b, f, triggers)
	return admitPage(b, f, len(triggers))
}

func makeAllDue(b *testing.B, f Fixture, triggers []string) {
	for _, id := range triggers {
		if err := f.MakeDue(context.Background(), id, 1_000); err != nil {
			b.Fatal(err)
		}
	}
}

// admitPage times one page of the want due triggers: take, decide,
// commit.
func admitPage(b *testing.B, f Fixture, want int) time.Duration {
	ctx := context.Background()
	start := time.Now()
	tks, err := f.Schedule.ScheduleTake(ctx, schedule.TakeParams{Limit: benchPage})
	if err != nil {
		b.Fatal(err)
	}
	ps := make([]schedule.CommitParams, len(tks))
	for i, tk := range tks {
		ps[i] = schedule.CommitParams{Ticket: tk, Decision: decide(b, tk), GraceMs: graceMs, RunID: ids.New(), AttemptID: ids.New()}
	}
	rs, err := f.Schedule.ScheduleCommitPage(ctx, ps)
	if err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	for _, r := range rs {
		if r.Outcome != schedule.Admitted {
			b.Fatalf("a benchmark admission: %s (%s)", r.Outcome, r.Reason)
		}
	}
	if len(rs) != want {
		b.Fatalf("a round admitted %d, want %d", len(rs), want)
	}
	return took
}
