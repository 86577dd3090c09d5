package storetest

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/retention"
)

// EnvEstimateHistory sizes BenchRetentionEstimate's history of ended Runs
// (default DefaultEstimateHistory).
const EnvEstimateHistory = "QL_BENCH_ESTIMATE_HISTORY"

// DefaultEstimateHistory is the history a plain `go test -bench` seeds.
// Set QL_BENCH_ESTIMATE_HISTORY=1000000 for a year of a busy installation.
const DefaultEstimateHistory = 200_000

// BenchRetentionEstimate measures the dry run (`ql retention run
// --dry-run`) over a history of ended Runs of which about one in nine has
// passed the runs rule's age, each with one attempt, a log and three
// events, as a year of history under a 40-day rule holds.
func BenchRetentionEstimate(b *testing.B, f Fixture) {
	ctx := context.Background()
	history := DefaultEstimateHistory
	if v := os.Getenv(EnvEstimateHistory); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 9 {
			b.Fatalf("%s=%q is not a number of at least 9", EnvEstimateHistory, v)
		}
		history = n
	}
	d := newDefs(b, f, "estimate", quietCron(b, f))
	initialise(b, f)
	template := admitNow(b, f, d.Trigger.TriggerID, 1_000)
	start := time.Now()
	expired := history / 9
	for _, part := range []struct {
		n   int
		age time.Duration
	}{{expired, 60 * retention.Day}, {history - expired, retention.Day}} {
		for seeded := 0; seeded < part.n; seeded += 10_000 {
			if _, err := f.SeedFinished(ctx, template, min(10_000, part.n-seeded), now(b, f)-part.age.Milliseconds(), 64); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Logf("seeded %d ended runs (%d expired) in %s", history, expired, time.Since(start).Round(time.Millisecond))
	p := retention.Policy{RunsAge: 40 * retention.Day, LogsAge: 30 * retention.Day, LogBytes: 1 << 40, NotificationsAge: 30 * retention.Day}
	for b.Loop() {
		est, err := f.Retention.RetentionEstimate(ctx, p)
		if err != nil {
			b.Fatal(err)
		}
		if got := est[retention.KindRuns].Runs; got != int64(expired) {
			b.Fatalf("the estimate counts %d expired runs, want %d", got, expired)
		}
	}
}
