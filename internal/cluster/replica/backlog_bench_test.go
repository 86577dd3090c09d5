package replica

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/availability"
	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/cluster/scheduler"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

const backlog = 10_000

// resetBacklog makes every one of the backlog's triggers due once more, by
// the database clock, with no runs and no claims.
func resetBacklog(b *testing.B, env *clustertest.Env) {
	b.Helper()
	env.Exec(b, `TRUNCATE qinglong.run_events, qinglong.attempts, qinglong.runs`)
	env.Exec(b, `UPDATE qinglong.trigger_schedules
		SET next_fire_at_ms = `+pgstore.ClockMsSQL+` - 1000,
		    last_scheduled_at_ms = NULL, claim_owner = NULL, claim_token = NULL, claim_expires_at_ms = NULL,
		    state_version = state_version + 1`)
	env.Exec(b, `VACUUM ANALYZE qinglong.trigger_schedules`)
	// Start every measurement from a clean checkpoint, so one variant does
	// not pay for the previous one's dirty pages.
	env.Exec(b, `CHECKPOINT`)
}

// BenchmarkBacklogDrain measures how fast a backlog of 10,000 due triggers
// turns into Runs (occurrences/s), for each commit path:
//
//   - path=page: the page committed at once (schedule.Store's
//     ScheduleCommitPage); path=row: each decision in its own transaction,
//     at most the scheduler's commit parallelism at once (perRow), the
//     admission path pages replaced, as the same-run baseline;
//   - direct: one replica calling Round back to back with no lifecycle —
//     the database-speed baseline of this run;
//   - replicas=N: N started coordinators (own pools, own owners) under
//     their lifecycle, which claims the next page while one commits;
//     replicas=1 should match the baseline, not 16/s.
func BenchmarkBacklogDrain(b *testing.B) {
	env := clustertest.New(b)
	// A yearly expression: an admitted trigger's next occurrence is months
	// away, so however long a drain takes, each trigger is due exactly once.
	docs := make([]string, 10)
	for i := range docs {
		docs[i] = clustertest.Triggers(fmt.Sprintf("backlog-%d", i), backlog/len(docs), "0 0 1 1 *")
	}
	env.Apply(b, docs...)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	// A small page against the cap (the default).
	for _, page := range []int{16, scheduler.MaxPageSize} {
		for _, path := range []string{"row", "page"} {
			benchDrainPath(b, env, log, page, path)
		}
	}
}

// benchDrainPath measures one page size and commit path, direct and
// under the lifecycle.
func benchDrainPath(b *testing.B, env *clustertest.Env, log *slog.Logger, page int, path string) {
	b.Run(fmt.Sprintf("page=%d/path=%s/direct", page, path), func(b *testing.B) {
		c := newBenchCoordinator(b, env, "direct", page, path, log)
		var elapsed time.Duration
		for b.Loop() {
			resetBacklog(b, env)
			start := time.Now()
			for {
				sum, err := c.Round(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if !sum.Full(page) {
					break
				}
			}
			elapsed += time.Since(start)
			checkDrained(b, env)
		}
		b.ReportMetric(float64(backlog*b.N)/elapsed.Seconds(), "occurrences/s")
	})
	for _, replicas := range []int{1, 2} {
		b.Run(fmt.Sprintf("page=%d/path=%s/replicas=%d", page, path, replicas), func(b *testing.B) {
			var elapsed time.Duration
			for b.Loop() {
				resetBacklog(b, env)
				coords := make([]*scheduler.Coordinator, replicas)
				for i := range coords {
					coords[i] = newBenchCoordinator(b, env, fmt.Sprintf("bench-%d", i), page, path, log)
				}
				start := time.Now()
				for _, c := range coords {
					if err := c.Start(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
				waitDrained(b, env)
				elapsed += time.Since(start)
				for _, c := range coords {
					if err := c.Stop(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
				checkDrained(b, env)
			}
			b.ReportMetric(float64(backlog*b.N)/elapsed.Seconds(), "occurrences/s")
		})
	}
}

func newBenchCoordinator(b *testing.B, env *clustertest.Env, owner string, page int, path string, log *slog.Logger) *scheduler.Coordinator {
	b.Helper()
	var st schedule.Store = env.Runtime(b, owner, pgstore.DefaultLease)
	if path == "row" {
		st = perRow{Store: st, sem: make(chan struct{}, scheduler.DefaultParallel)}
	}
	c, err := scheduler.New(scheduler.Config{Owner: owner, PageSize: page}, st, log, availability.New())
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// perRow commits each decision of a page in its own transaction, at most
// cap(sem) at once across the page's groups: the admission path before
// pages were committed at once, kept as this benchmark's baseline.
type perRow struct {
	schedule.Store
	sem chan struct{}
}

func (s perRow) ScheduleCommitPage(ctx context.Context, ps []schedule.CommitParams) ([]schedule.CommitResult, error) {
	out := make([]schedule.CommitResult, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		s.sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-s.sem }()
			out[i], out[i].Err = s.ScheduleCommit(ctx, p)
		})
	}
	wg.Wait()
	return out, nil
}

// waitDrained polls until every trigger of the backlog has its Run.
func waitDrained(b *testing.B, env *clustertest.Env) {
	b.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for env.Int(b, `SELECT count(*) FROM qinglong.runs`) < backlog {
		if time.Now().After(deadline) {
			b.Fatal("backlog not drained in 10 minutes")
		}
		<-tick.C
	}
}

func checkDrained(b *testing.B, env *clustertest.Env) {
	b.Helper()
	if o := env.Count(b); o.Runs != backlog || o.Duplicates != 0 || o.Malformed != 0 {
		b.Fatalf("after the drain: %+v", o)
	}
}
