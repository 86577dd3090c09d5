package pgstore

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// benchDispatchRuns is how many Runs BenchmarkDispatch admits, then
// executes, per iteration.
const benchDispatchRuns = 1_000

// BenchmarkDispatch admits benchDispatchRuns Runs with one replica's
// rounds (admits/s), then, in the same run, has 4 workers with 8 slots
// each take every Run through pull, start and complete (a no-op command:
// runs/s), and reports the ratio. Dispatch keeps up with admission when it
// is at least 1: the store's steps are then never what holds Runs queued.
func BenchmarkDispatch(b *testing.B) {
	s := newStore(b)
	s.buildDueSchedules(b, benchDispatchRuns)
	var workers []worker
	for i := range 4 {
		workers = append(workers, s.newWorker(b, fmt.Sprintf("w%d", i), nil, 8))
	}
	var admits, runs float64
	for b.Loop() {
		b.StopTimer()
		s.resetDue(b)
		for i := range workers {
			workers[i].session = s.register(b, workers[i], 8, nil).SessionID
		}
		b.StartTimer()
		admits = s.admitAll(b, benchDispatchRuns)
		runs = s.executeAll(b, workers, benchDispatchRuns)
	}
	b.ReportMetric(admits, "admits/s")
	b.ReportMetric(runs, "runs/s")
	b.ReportMetric(runs/admits, "dispatch/admission")
}

// admitAll runs the scheduler's rounds on the store's runtime until no
// due row is left and returns admissions per second.
func (s *store) admitAll(b *testing.B, n int) float64 {
	b.Helper()
	cfg := schedule.RoundConfig{PageSize: benchPage, GraceMs: testGraceMs, Parallel: benchParallel, NewIDs: ids.Fill}
	admitted := 0
	start := time.Now()
	for {
		sum, err := schedule.Round(b.Context(), s.runtime, cfg)
		if err != nil || len(sum.Errors) > 0 {
			b.Fatalf("round: %v %v", err, sum.Errors)
		}
		admitted += sum.Counts[schedule.Admitted]
		if sum.Taken == 0 {
			break
		}
	}
	if admitted != n {
		b.Fatalf("admitted %d of %d due schedules", admitted, n)
	}
	return float64(n) / time.Since(start).Seconds()
}

// executeAll runs each worker as a worker does: one loop pulling as many
// grants as it has free slots (of 8), each grant started and completed with
// exit 0 on its own goroutine, until n Runs ended. It returns Runs ended
// per second.
func (s *store) executeAll(b *testing.B, workers []worker, n int64) float64 {
	b.Helper()
	var done atomic.Int64
	var wg sync.WaitGroup
	settings := WorkerSettings{}
	start := time.Now()
	for _, w := range workers {
		wg.Go(func() {
			slots := make(chan struct{}, 8)
			var running sync.WaitGroup
			defer running.Wait()
			for done.Load() < n {
				free := cap(slots) - len(slots)
				if free == 0 {
					time.Sleep(time.Millisecond)
					continue
				}
				req := w.offer(b, free)
				reply, err := s.runtime.PullGrants(b.Context(), w.WorkerIdentity, req, settings)
				if err != nil {
					b.Error(err)
					return
				}
				if len(reply.Grants) == 0 {
					time.Sleep(time.Millisecond)
					continue
				}
				for _, g := range reply.Grants {
					slots <- struct{}{}
					running.Go(func() {
						defer func() { <-slots }()
						l := lease(req, g)
						if _, err := s.runtime.StartAttempt(b.Context(), w.WorkerIdentity, workerproto.StartRequest{Lease: l}, settings); err != nil {
							b.Error(err)
							return
						}
						code := int64(0)
						if _, err := s.runtime.CompleteAttempt(b.Context(), w.WorkerIdentity, workerproto.CompleteRequest{Lease: l, Outcome: workerproto.OutcomeExited, ExitCode: &code}); err != nil {
							b.Error(err)
							return
						}
						done.Add(1)
					})
				}
			}
		})
	}
	wg.Wait()
	return float64(n) / time.Since(start).Seconds()
}
