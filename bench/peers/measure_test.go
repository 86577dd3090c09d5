package peers

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// The schedule counts every system is measured at.
var sizes = []int{1_000, 10_000}

// BenchmarkAligned starts one private PostgreSQL for the whole run, with
// commit timestamps on so both systems' commits are read from the same
// clock (the harness's durability settings, fsync on, stay), and measures
// for each n River's periodic jobs, then QingLong's replica, then the floor
// of QingLong's rows (floorAligned), on it.
func BenchmarkAligned(b *testing.B) {
	srv, err := pgtest.StartServer(context.Background(), pgtest.Options{
		ExtraConf: map[string]string{"track_commit_timestamp": "on"},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := srv.Stop(context.Background()); err != nil {
			b.Error(err)
		}
	})
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d/river", n), func(b *testing.B) { riverAligned(b, srv, n) })
		b.Run(fmt.Sprintf("n=%d/qinglong", n), func(b *testing.B) { qinglongAligned(b, srv, n) })
		b.Run(fmt.Sprintf("n=%d/floor", n), func(b *testing.B) { floorAligned(b, srv, n) })
	}
}

// result is one system's drain of n occurrences aligned on one boundary,
// all in database time: the commit timestamps of the rows that record
// each occurrence (River's job, QingLong's Run).
type result struct {
	Drain      time.Duration // last commit − boundary
	P50, P99   time.Duration // per-occurrence commit − boundary
	Occurrence int64         // distinct occurrences recorded
	Duplicates int64         // occurrences recorded more than once
	// CPU is what the drain cost, for the drains that meter it (QingLong's
	// and the floor's: from before the replica starts, or the boundary,
	// to the last occurrence counted); nil for the others.
	CPU *cpuUse
}

func (r result) report(b *testing.B) {
	b.ReportMetric(float64(r.Drain.Milliseconds()), "drain_ms")
	b.ReportMetric(float64(r.P50.Milliseconds()), "lag_p50_ms")
	b.ReportMetric(float64(r.P99.Milliseconds()), "lag_p99_ms")
	b.ReportMetric(float64(r.Duplicates), "duplicates")
	b.ReportMetric(float64(r.Occurrence), "occurrences")
	if r.CPU != nil {
		r.CPU.report(b, int(r.Occurrence))
	}
}

// measure reads a result from rows of (occurrence key, commit ms) that
// rowsSQL selects, against boundaryMs.
func measure(b *testing.B, pool *pgxpool.Pool, rowsSQL string, boundaryMs int64) result {
	b.Helper()
	var r result
	var drain, p50, p99 float64
	err := pool.QueryRow(context.Background(), `WITH o AS (`+rowsSQL+`)
		SELECT max(commit_ms) - $1,
		       percentile_cont(0.5) WITHIN GROUP (ORDER BY commit_ms - $1),
		       percentile_cont(0.99) WITHIN GROUP (ORDER BY commit_ms - $1),
		       count(DISTINCT key),
		       count(*) - count(DISTINCT key)
		  FROM o`, boundaryMs).Scan(&drain, &p50, &p99, &r.Occurrence, &r.Duplicates)
	if err != nil {
		b.Fatal(err)
	}
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	r.Drain, r.P50, r.P99 = ms(drain), ms(p50), ms(p99)
	return r
}

// waitCount polls countSQL every interval until it reaches n; it fails
// after timeout. The measured times are commit timestamps, so a poll needs
// only to notice the end: a tighter one takes the database's CPU from the
// drain it measures.
func waitCount(b *testing.B, pool *pgxpool.Pool, countSQL string, n int, timeout, interval time.Duration) {
	b.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var got int
		if err := pool.QueryRow(context.Background(), countSQL).Scan(&got); err != nil {
			b.Fatal(err)
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d occurrences recorded after %s", got, n, timeout)
		}
		time.Sleep(interval)
	}
}

// nextBoundary is the first whole second at least lead from now.
func nextBoundary(lead time.Duration) time.Time {
	return time.Now().Add(lead).Truncate(time.Second).Add(time.Second)
}
