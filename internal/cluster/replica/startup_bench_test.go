package replica

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/cleanstop"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// BenchmarkReplicaStartup measures one activation (pool, readiness,
// startup recovery with its sweep and scan, scheduler and worker loops
// started) over a database holding finished and unfinished Runs:
//
//   - runs=0: one Run, the baseline of this run;
//   - finished=1000000/unfinished=10000: a long-lived cluster, which must
//     still become ready in seconds; a tenth of the unfinished Runs are
//     granted to a worker that vanished (their leases expired), so each
//     start releases them before it scans.
func BenchmarkReplicaStartup(b *testing.B) {
	for _, c := range []struct{ finished, unfinished int }{{0, 0}, {1_000_000, 10_000}} {
		name := "runs=0"
		if c.finished > 0 {
			name = fmt.Sprintf("finished=%d/unfinished=%d", c.finished, c.unfinished)
		}
		b.Run(name, func(b *testing.B) {
			env := clustertest.New(b)
			seedRuns(b, env, c.finished, c.unfinished)
			f := cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: env.URL(pgstore.RoleRuntime), ReplicaID: "bench-startup",
				RolePrefix: env.Prefix, HTTPAddr: "127.0.0.1:0", WorkerAddr: "127.0.0.1:0"}
			s, err := settingsFrom(&f)
			if err != nil {
				b.Fatal(err)
			}
			r := &replica{s: s, log: slog.New(slog.NewTextHandler(io.Discard, nil)), adm: &admission{}, beat: newHeartbeat()}
			if err := r.listenWorkers(); err != nil {
				b.Fatal(err)
			}
			cleanstop.AtCleanup(b, "the worker ingress", 10*time.Second, r.workerHTTP.Shutdown)
			var elapsed time.Duration
			for b.Loop() {
				expireLeases(b, env, c.unfinished/10)
				start := time.Now()
				act, err := r.activate(context.Background(), 1, nil)
				if err != nil {
					b.Fatal(err)
				}
				elapsed += time.Since(start)
				if err := act.deactivate(10 * time.Second); err != nil {
					b.Fatal(err)
				}
				if n := env.Int(b, `SELECT count(*) FROM qinglong.runs WHERE state = 'dispatching'`); n != 0 {
					b.Fatalf("%d Runs still dispatching under an expired lease after startup recovery", n)
				}
			}
			b.ReportMetric(float64(elapsed.Milliseconds())/float64(b.N), "ms/startup")
		})
	}
}

// seedRuns admits one Run through the scheduler, then copies it, as the
// superuser, into finished Runs (every terminal state in turn) and
// unfinished ones (queued, each with its claimed Attempt), each with one
// set-based statement.
func seedRuns(b *testing.B, env *clustertest.Env, finished, unfinished int) {
	b.Helper()
	env.Apply(b, clustertest.Triggers("startup", 1, clustertest.QuietCron()))
	env.MakeDue(b, 1000)
	rt := env.Runtime(b, "seeder", 30*time.Second)
	if sum, err := schedule.Round(context.Background(), rt, schedule.RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 30_000, NewIDs: ids.Fill}); err != nil || sum.Counts[schedule.Admitted] != 1 {
		b.Fatalf("seeding round %v %v", sum.Counts, err)
	}
	if finished > 0 {
		env.Exec(b, `INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
				idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, finished_at_ms)
			SELECT gen_random_uuid(), project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
				idempotency_key || '-f' || g, scheduled_for_ms, (ARRAY['succeeded', 'failed', 'cancelled', 'timed_out'])[1 + g % 4],
				version + 3, last_event_seq + 3, created_at_ms, queued_at_ms, updated_at_ms, updated_at_ms
			FROM qinglong.runs, generate_series(1, $1) g`, finished)
	}
	if unfinished > 0 {
		env.Exec(b, `WITH seed AS (
				SELECT r.*, a.executor, a.created_at_ms AS attempt_created_at_ms
				FROM qinglong.runs r JOIN qinglong.attempts a ON a.run_id = r.id
				WHERE r.state = 'queued' LIMIT 1),
			added AS (
				INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
					idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms)
				SELECT gen_random_uuid(), project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
					idempotency_key || '-u' || g, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms
				FROM seed, generate_series(1, $1) g
				RETURNING id, created_at_ms)
			INSERT INTO qinglong.attempts (id, run_id, number, executor, state, created_at_ms, updated_at_ms)
			SELECT gen_random_uuid(), added.id, 1, seed.executor, 'claimed', added.created_at_ms, added.created_at_ms
			FROM added, seed`, unfinished)
	}
	env.Exec(b, `VACUUM ANALYZE qinglong.runs`)
	env.Exec(b, `VACUUM ANALYZE qinglong.attempts`)
	env.Exec(b, `CHECKPOINT`)
	want := int64(1 + finished + unfinished)
	if got := env.Int(b, `SELECT count(*) FROM qinglong.runs`); got != want {
		b.Fatalf("seeded %d runs, want %d", got, want)
	}
}

// expireLeases grants n queued Runs to a vanished worker whose leases have
// expired, as the superuser, outside the measured time.
func expireLeases(b *testing.B, env *clustertest.Env, n int) {
	b.Helper()
	if n == 0 {
		return
	}
	env.Exec(b, `WITH picked AS (
			SELECT id FROM qinglong.runs WHERE state = 'queued' ORDER BY id LIMIT $1),
		runs AS (
			UPDATE qinglong.runs r SET state = 'dispatching', version = r.version + 1 FROM picked p WHERE r.id = p.id RETURNING r.id)
		UPDATE qinglong.attempts a SET worker_id = gen_random_uuid(), session_id = gen_random_uuid(), offer_id = gen_random_uuid(),
			lease_token_sha256 = repeat('c', 64), lease_version = 1, lease_expires_at_ms = a.created_at_ms + 1
		FROM runs WHERE a.run_id = runs.id`, n)
}
