package peers

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// tickArgs is one periodic schedule's job; I names the schedule, so a
// schedule enqueued twice for the boundary is a duplicate.
type tickArgs struct {
	I int `json:"i"`
}

func (tickArgs) Kind() string { return "peer_tick" }

type tickWorker struct {
	river.WorkerDefaults[tickArgs]
}

func (tickWorker) Work(context.Context, *river.Job[tickArgs]) error { return nil }

// alignedSchedule fires once, at boundary.
type alignedSchedule struct{ boundary time.Time }

func (s alignedSchedule) Next(current time.Time) time.Time {
	if current.Before(s.boundary) {
		return s.boundary
	}
	return current.Add(24 * time.Hour)
}

// periodicQueue holds the periodic jobs. No client works it, so every job
// stays the row its enqueuer committed.
const periodicQueue = "peer_periodic"

// riverAligned: River's periodic jobs, n schedules all due at one
// boundary, enqueued by its elected leader (one client).
func riverAligned(b *testing.B, srv *pgtest.Srv, n int) {
	pool := srv.NewDatabase(b).Pool(b)
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := migrator.Migrate(context.Background(), rivermigrate.DirectionUp, nil); err != nil {
		b.Fatal(err)
	}
	var last result
	for b.Loop() {
		last = riverRun(b, pool, n)
	}
	last.report(b)
}

func riverRun(b *testing.B, pool *pgxpool.Pool, n int) result {
	b.Helper()
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `TRUNCATE river_job`); err != nil {
		b.Fatal(err)
	}
	boundary := nextBoundary(5 * time.Second)
	jobs := make([]*river.PeriodicJob, n)
	for i := range jobs {
		jobs[i] = river.NewPeriodicJob(alignedSchedule{boundary: boundary}, func() (river.JobArgs, *river.InsertOpts) {
			return tickArgs{I: i}, &river.InsertOpts{Queue: periodicQueue}
		}, nil)
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &tickWorker{})
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		PeriodicJobs: jobs,
		Queues:       map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 1}},
		Workers:      workers,
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := client.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer func() {
		stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := client.Stop(stopCtx); err != nil {
			b.Error(err)
		}
	}()
	waitCount(b, pool, `SELECT count(*) FROM river_job WHERE queue = '`+periodicQueue+`'`, n, 2*time.Minute, 100*time.Millisecond)
	return measure(b, pool, `SELECT args->>'i' AS key,
		extract(epoch FROM pg_xact_commit_timestamp(xmin)) * 1000 AS commit_ms
		FROM river_job WHERE queue = '`+periodicQueue+`'`, boundary.UnixMilli())
}
