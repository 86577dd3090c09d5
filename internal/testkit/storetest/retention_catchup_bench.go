package storetest

import (
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/retention"
)

// EnvCatchUpBacklog sizes BenchRetentionCatchUp's history of ended Runs,
// each with a log (default 100,000).
const EnvCatchUpBacklog = "QL_BENCH_CATCHUP_BACKLOG"

// EnvCatchUpWindow is how long each block of BenchRetentionCatchUp
// deletes (a Go duration, default 3s).
const EnvCatchUpWindow = "QL_BENCH_CATCHUP_WINDOW"

// catchUpPolicy is the policy BenchRetentionCatchUp clears: the seeded
// Runs ended 40 to 365 days ago go whole, the logs of those ended 8 to 29
// days ago go alone.
var catchUpPolicy = retention.Policy{RunsAge: 30 * retention.Day, LogsAge: 7 * retention.Day}

// BenchRetentionCatchUp measures how fast retention clears a year of
// expired history, and what an admission waits meanwhile. It seeds the
// history once (nine in ten Runs past the runs rule, the rest past the
// logs rule only, each with a log), then each iteration runs one block
// per pacing and one without retention, in an order that rotates from one
// iteration to the next. A pacing's block runs passes as the serving
// process's loop does (the next at once while one reports More) for the
// window; beside it, admission rounds (a page of catchUpPage due triggers
// each) follow one another admitEvery apart. Per pacing it reports the Runs and the
// logs deleted per second of its blocks, the admission rounds' median,
// 99th percentile and longest time, and the most Runs and logs one batch
// (one write transaction) deleted; the block without retention reports
// its admission times as the baseline. A store that reports its batches'
// hold on the writer (Result.Held) also gets their mean and longest.
func BenchRetentionCatchUp(b *testing.B, f Fixture, pacings ...RetentionPacing) {
	ctx := context.Background()
	backlog := envInt(b, EnvCatchUpBacklog, 100_000)
	window := 3 * time.Second
	if v := os.Getenv(EnvCatchUpWindow); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			b.Fatalf("%s=%q is not a positive duration", EnvCatchUpWindow, v)
		}
		window = d
	}
	var triggers []string
	for i := range benchPage {
		d := newDefs(b, f, "catchup"+strconv.Itoa(i), quietCron(b, f))
		triggers = append(triggers, d.Trigger.TriggerID)
	}
	initialise(b, f)
	template := admitNow(b, f, triggers[0], 1_000)
	start := time.Now()
	const chunk = 5_000
	for seeded := 0; seeded < backlog; seeded += chunk {
		// Spread over the year, oldest first; one chunk in ten past the
		// logs rule only.
		age := 365 - (365-40)*seeded/backlog
		if (seeded/chunk)%10 == 9 {
			age = 8 + seeded%21
		}
		if _, err := f.SeedFinished(ctx, template, min(chunk, backlog-seeded), now(b, f)-(time.Duration(age)*retention.Day).Milliseconds(), 1500); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded %d ended Runs with logs in %s", backlog, time.Since(start).Round(time.Millisecond))

	type tally struct {
		runs, logs       int64
		deletingFor      time.Duration
		admits           []time.Duration
		maxRuns, maxLogs int64
		batches          int
		held, maxHeld    time.Duration
	}
	tallies := make([]tally, len(pacings)+1)
	order := make([]int, len(pacings)+1)
	for i := range order {
		order[i] = i - 1
	}
	for iter := 0; b.Loop(); iter++ {
		for k := range order {
			p := order[(k+iter)%len(order)]
			t := &tallies[p+1]
			blockCtx, cancel := context.WithTimeout(ctx, window)
			var g *catchUpGate
			done := make(chan struct{})
			began := time.Now()
			if p >= 0 {
				g = &catchUpGate{Store: f.Retention}
				if pacings[p].Store != nil {
					g.Store = pacings[p].Store
				}
				go func() {
					defer close(done)
					g.passes(blockCtx, b, pacings[p].Options)
				}()
			} else {
				close(done)
			}
			for round := 0; blockCtx.Err() == nil; round++ {
				page := triggers[(round%(benchPage/catchUpPage))*catchUpPage:][:catchUpPage]
				makeAllDue(b, f, page)
				t.admits = append(t.admits, admitPage(b, f, catchUpPage))
				sleepCtx(blockCtx, admitEvery)
			}
			cancel()
			<-done
			if g != nil {
				t.deletingFor += time.Since(began)
				t.runs += g.deleted.Runs
				t.logs += g.deleted.Logs
				t.maxRuns = max(t.maxRuns, g.maxRuns)
				t.maxLogs = max(t.maxLogs, g.maxLogs)
				t.batches += g.batches
				t.held += g.held
				t.maxHeld = max(t.maxHeld, g.maxHeld)
			}
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	for i := range tallies {
		t := tallies[i]
		name := "without"
		if i > 0 {
			name = pacings[i-1].Name
			if t.runs+t.logs == 0 {
				b.Fatalf("%s: retention deleted nothing", name)
			}
			b.ReportMetric(float64(t.runs)/t.deletingFor.Seconds(), name+"-runs/s")
			b.ReportMetric(float64(t.logs)/t.deletingFor.Seconds(), name+"-logs/s")
			b.ReportMetric(float64(t.maxRuns), name+"-most-runs/batch")
			b.ReportMetric(float64(t.maxLogs), name+"-most-logs/batch")
			b.ReportMetric(float64(t.batches), name+"-batches")
			b.ReportMetric(ms(t.held)/float64(t.batches), name+"-held-ms/batch")
			b.ReportMetric(ms(t.maxHeld), name+"-held-max-ms")
		}
		slices.Sort(t.admits)
		b.ReportMetric(ms(t.admits[len(t.admits)/2]), name+"-admit-p50-ms")
		b.ReportMetric(ms(t.admits[len(t.admits)*99/100]), name+"-admit-p99-ms")
		b.ReportMetric(ms(t.admits[len(t.admits)-1]), name+"-admit-max-ms")
	}
}

// admitEvery and catchUpPage are BenchRetentionCatchUp's admissions: a
// page of 8 every quarter second, about what 2,000 triggers firing every
// minute ask. The triggers are made due on a connection of the fixture's
// own, one commit each, whose lock a batch may wait for as for another
// process's.
const (
	admitEvery  = 250 * time.Millisecond
	catchUpPage = 8
)

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q is not a positive number", name, v)
	}
	return n
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// catchUpGate counts what a block's passes delete, batch by batch, and
// refuses the next batch once the block is over.
type catchUpGate struct {
	retention.Store
	mu               sync.Mutex
	deleted          retention.Deleted
	maxRuns, maxLogs int64
	batches          int
	// held adds up how long the batches held the writer (Result.Held),
	// maxHeld the longest.
	held, maxHeld time.Duration
}

func (g *catchUpGate) RetentionBatch(ctx context.Context, bt retention.Batch) (retention.Result, error) {
	if err := ctx.Err(); err != nil {
		return retention.Result{}, err
	}
	res, err := g.Store.RetentionBatch(context.WithoutCancel(ctx), bt)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.deleted.Add(res.Deleted)
	g.maxRuns = max(g.maxRuns, res.Deleted.Runs)
	g.maxLogs = max(g.maxLogs, res.Deleted.Logs)
	g.batches++
	g.held += res.Held
	g.maxHeld = max(g.maxHeld, res.Held)
	return res, err
}

// passes runs passes as the serving process's loop does until ctx ends:
// the next at once while one had more to do, else after a second.
func (g *catchUpGate) passes(ctx context.Context, b *testing.B, o retention.Options) {
	for ctx.Err() == nil {
		rep, err := retention.Pass(ctx, g, catchUpPolicy, o)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && !errors.Is(err, context.Canceled):
			b.Error(err)
			return
		case !rep.More:
			sleepCtx(ctx, time.Second)
		}
	}
}
