package replica

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/worker/agent"
)

// A retry is granted when its backoff ends, not at the lease sweep's next
// cadence: with the default run lease the sweep runs every 5 s, and a
// Run whose attempt failed with a 1 s backoff must start its next attempt
// within 2.5 s of the failure (and not before the backoff), each time. The
// command fails twice, so the second retry's backoff starts right after a
// sweep round queued the first one: a retry that waited for the sweep's
// cadence would start about 5 s after that failure.
func TestARetryStartsWhenItsBackoffEndsNotAtTheSweepsCadence(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	counter := filepath.Join(t.TempDir(), "tries")
	env.Apply(t, fmt.Sprintf(`project: retry
tasks:
  - name: job
    script: n=$(cat %[1]s 2>/dev/null || echo 0); echo $((n+1)) > %[1]s; [ $n -ge 2 ]
    retry: {maxAttempts: 3, backoff: 1s, on: [failed]}
triggers:
  - {name: t0, task: job, cron: %[2]q, timezone: UTC}
`, counter, clustertest.QuietCron()))
	admin, err := pgstore.OpenAdmin(t.Context(), env.URL(pgstore.RoleAdmin))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	cred, err := admin.WorkerCreate(t.Context(), "retrier", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	f := cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: env.URL(pgstore.RoleRuntime), ReplicaID: "replica-retry", RolePrefix: env.Prefix,
		HTTPAddr: "127.0.0.1:0", WorkerAddr: "127.0.0.1:0", Cadence: 250 * time.Millisecond, StopTimeout: 2 * time.Second, RunLease: DefaultRunLease}
	if every := sweepEvery(f.RunLease); every < 4*time.Second {
		t.Fatalf("the sweep runs every %s with the default run lease; the test needs a cadence well above the 2.5 s bound", every)
	}
	p := serveInProcess(t, f)
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	dir := t.TempDir() // before the goroutine: removed only after the stop below
	go func() {
		_, err := agent.Run(ctx, agent.Config{Server: "http://" + p.workerAddr, Credential: cred, DataDir: dir, Concurrency: 1,
			StopTimeout: 2 * time.Second, Version: "test", Logger: slog.New(slog.DiscardHandler)})
		ran <- err
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-ran; err != nil {
			t.Errorf("the worker returned %v after the stop", err)
		}
	})
	env.MakeDue(t, 1000)
	eventually(t, 60*time.Second, "the Run to succeed at its third attempt", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE state = 'succeeded'`) == 1
	})
	rows, err := env.Super.Query(context.Background(), `SELECT b.number, b.started_at_ms - a.finished_at_ms
		FROM qinglong.attempts a JOIN qinglong.attempts b ON b.run_id = a.run_id AND b.number = a.number + 1
		ORDER BY b.number`)
	if err != nil {
		t.Fatal(err)
	}
	var gaps []int64
	for rows.Next() {
		var number int
		var gap int64
		if err := rows.Scan(&number, &gap); err != nil {
			t.Fatal(err)
		}
		t.Logf("attempt %d started %d ms after attempt %d failed (backoff 1000 ms)", number, gap, number-1)
		gaps = append(gaps, gap)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(gaps) != 2 {
		t.Fatalf("found %d retries, want 2", len(gaps))
	}
	for i, gap := range gaps {
		if gap < 1000 || gap > 2500 {
			t.Errorf("retry %d started %d ms after the failure; want within 1000–2500 ms (the 1 s backoff, not the sweep's cadence)", i+1, gap)
		}
	}
}
