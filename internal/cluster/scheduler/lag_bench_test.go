package scheduler

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/availability"
	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// cadenceOnly hides a store's horizon: its scheduler wakes on the cadence,
// as every scheduler did before it learned the next due instant. It is the
// baseline of BenchmarkAdmissionLag.
type cadenceOnly struct{ st schedule.Store }

func (c cadenceOnly) ScheduleTake(ctx context.Context, p schedule.TakeParams) ([]schedule.Ticket, error) {
	return c.st.ScheduleTake(ctx, p)
}

func (c cadenceOnly) ScheduleCommit(ctx context.Context, p schedule.CommitParams) (schedule.CommitResult, error) {
	return c.st.ScheduleCommit(ctx, p)
}

func (c cadenceOnly) ScheduleCommitPage(ctx context.Context, ps []schedule.CommitParams) ([]schedule.CommitResult, error) {
	return c.st.ScheduleCommitPage(ctx, ps)
}

func (c cadenceOnly) Executor() task.Executor { return c.st.Executor() }

const (
	// lagWindow is how long the replicas run; occurrences are measured
	// from its second second to two seconds before its end, so the first
	// round and the stop cut nothing measured.
	lagWindow = 7 * time.Second
)

// BenchmarkAdmissionLag measures the admission lag (Run created −
// scheduled time, both database time) of 300 triggers firing every second
// (and of 30, which a loaded machine can still admit within the second)
// under the default cadence (1 s) and parallelism, page 256: wake=cadence is
// the baseline of this run (the store's horizon hidden), wake=due wakes at
// the next due instant. Run with -benchtime=1x; each iteration runs the
// replicas for 7 s.
func BenchmarkAdmissionLag(b *testing.B) {
	for _, triggers := range []int{30, 300} {
		env := clustertest.New(b)
		env.Apply(b, clustertest.Triggers("lag", triggers, "* * * * * *"))
		for _, replicas := range []int{1, 3} {
			for _, wake := range []string{"cadence", "due"} {
				b.Run(fmt.Sprintf("triggers=%d/replicas=%d/wake=%s", triggers, replicas, wake), func(b *testing.B) {
					var p50, p99, n float64
					for b.Loop() {
						q50, q99, dropped := admissionLagRun(b, env, triggers, replicas, wake == "cadence")
						p50, p99, n = p50+q50, p99+q99, n+dropped
					}
					b.ReportMetric(p50/float64(b.N), "lag_p50_ms")
					b.ReportMetric(p99/float64(b.N), "lag_p99_ms")
					b.ReportMetric(n/float64(b.N), "coalesced")
				})
			}
		}
	}
}

// admissionLagRun runs replicas over a fresh schedule for lagWindow and
// returns the lag p50 and p99 of the occurrences scheduled inside the
// measured part of the window and admitted, and how many of them were
// never admitted: fire_once coalesces an occurrence still unadmitted when
// the next one falls due, so a replica slower than 300 admissions/s drops
// some. No occurrence may be admitted twice.
func admissionLagRun(b *testing.B, env *clustertest.Env, triggers, replicas int, cadenceOnlyStore bool) (p50, p99, coalesced float64) {
	b.Helper()
	env.Exec(b, `TRUNCATE qinglong.run_events, qinglong.attempts, qinglong.runs`)
	env.Exec(b, `UPDATE qinglong.trigger_schedules
		SET next_fire_at_ms = (`+pgstore.ClockMsSQL+` / 1000 + 1) * 1000, last_scheduled_at_ms = NULL,
		    claim_owner = NULL, claim_token = NULL, claim_expires_at_ms = NULL, state_version = state_version + 1`)
	start := env.Int(b, `SELECT `+pgstore.ClockMsSQL)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	coords := make([]*Coordinator, replicas)
	for i := range coords {
		owner := fmt.Sprintf("lag-%d", i)
		var st schedule.Store = env.Runtime(b, owner, pgstore.DefaultLease)
		if cadenceOnlyStore {
			st = cadenceOnly{st}
		}
		c, err := New(Config{Owner: owner, PageSize: MaxPageSize}, st, log, availability.New())
		if err != nil {
			b.Fatal(err)
		}
		coords[i] = c
	}
	for _, c := range coords {
		if err := c.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(lagWindow)
	for _, c := range coords {
		if err := c.Stop(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	from := (start/1000 + 2) * 1000
	to := (start+lagWindow.Milliseconds())/1000*1000 - 2000
	var runs int64
	if err := env.Super.QueryRow(context.Background(), `SELECT
		percentile_cont(0.5) WITHIN GROUP (ORDER BY created_at_ms - scheduled_for_ms),
		percentile_cont(0.99) WITHIN GROUP (ORDER BY created_at_ms - scheduled_for_ms), count(*)
		FROM qinglong.runs WHERE scheduled_for_ms BETWEEN $1 AND $2`, from, to).Scan(&p50, &p99, &runs); err != nil {
		b.Fatal(err)
	}
	if o := env.Count(b); o.Duplicates != 0 || o.Malformed != 0 {
		b.Fatalf("occurrences: %+v", o)
	}
	return p50, p99, float64(int64(triggers)*((to-from)/1000+1) - runs)
}
