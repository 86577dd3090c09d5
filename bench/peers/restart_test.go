package peers

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// BenchmarkServeRestart is a rolling restart at a burst (BENCHMARKS.md,
// "A replica stopped at a boundary"): two real `ql serve --profile
// cluster --page-size 256` processes per binary (PEERS_QL_BINS) share n
// triggers on "* * * * *" (PEERS_RESTART_N, default 10000); one of them is
// sent SIGTERM at PEERS_RESTART_AT_MS milliseconds after the boundary
// (default 300: mid-burst; negative: before it, when a replica with
// --claim-ahead holds rows claimed ahead) and the other drains the
// boundary alone. It reports the drain (last Run's commit − boundary),
// lag p50/p99, duplicates, how long the stopped replica took to stop and
// how many claims it gave back. Every occurrence must get its Run within
// 90 s, so a claim left to expire (30 s lease) shows in the drain.
func BenchmarkServeRestart(b *testing.B) {
	srv := blackBoxServer(b)
	bins := qlBinaries(b)
	n, err := strconv.Atoi(envOr("PEERS_RESTART_N", "10000"))
	if err != nil {
		b.Fatal(err)
	}
	at, err := strconv.Atoi(envOr("PEERS_RESTART_AT_MS", "300"))
	if err != nil {
		b.Fatal(err)
	}
	env := blackBoxEnv(b, srv)
	applyTriggers(b, env, "restart", n, "* * * * *")
	for _, bin := range bins {
		b.Run(fmt.Sprintf("n=%d/at=%dms/ql=%s", n, at, bin.label), func(b *testing.B) {
			var last result
			for b.Loop() {
				last = restartRun(b, env, bin, n, time.Duration(at)*time.Millisecond)
			}
			last.report(b)
		})
	}
}

func restartRun(b *testing.B, env *clustertest.Env, bin binary, n int, at time.Duration) result {
	b.Helper()
	resetSchedules(b, env)
	flags := append([]string{"--page-size", "256"}, bin.flags...)
	stopping := startServe(b, bin.path, env, "stopping", flags...)
	staying := startServe(b, bin.path, env, "staying", flags...)
	defer staying.stop(b)
	defer stopping.stop(b)
	awaitInitialised(b, env, n)
	boundary := sharedBoundary(b, env)
	time.Sleep(time.Until(time.UnixMilli(boundary).Add(at)))
	began := time.Now()
	stopping.stop(b)
	took := time.Since(began)
	waitCount(b, env.Super, fmt.Sprintf(`SELECT count(*) FROM qinglong.runs WHERE scheduled_for_ms = %d`, boundary), n, 90*time.Second, 200*time.Millisecond)
	r := measure(b, env.Super, fmt.Sprintf(`SELECT trigger_id::text AS key,
		extract(epoch FROM pg_xact_commit_timestamp(xmin)) * 1000 AS commit_ms
		FROM qinglong.runs WHERE scheduled_for_ms = %d`, boundary), boundary)
	released := 0.0
	for _, rec := range stopping.logs.withCode("scheduler.claims_released") {
		released += num(rec, "rows")
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(os.Stderr, "--- %s\nn=%d, SIGTERM %s after the boundary: drain %s, lag p50 %s p99 %s, duplicates %d; the stopped replica took %s to stop and gave back %.0f claims; load average %s\n",
		b.Name(), n, at, r.Drain, r.P50, r.P99, r.Duplicates, took.Round(time.Millisecond), released,
		strings.Join(strings.Fields(string(load))[:3], " "))
	return r
}
