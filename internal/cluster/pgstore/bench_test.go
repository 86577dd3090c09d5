package pgstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/cpumeter"
)

// Benchmarks build their data only when run with -bench; nothing here runs
// in the normal test path.
//
//	go test ./internal/cluster/pgstore -run '^$' -bench . -benchtime 1x

const (
	benchDueSchedules = 10_000
	// benchParallel is each claimer's commit parallelism within a round:
	// the scheduler's default, so the figures are what a replica does.
	benchParallel = 4
	// benchPage is the page the admission benchmarks claim: a small one,
	// as their earlier figures (BENCHMARKS.md) were measured with.
	benchPage = 16
)

// BenchmarkClaimPlan is TestClaimCostStaysFlatOnTheAdversarialLayouts at
// 1,000,000 rows, reporting what one claim of 16 reads.
func BenchmarkClaimPlan(b *testing.B) {
	s := newStore(b)
	s.buildClaimLayout(b, claimLayout{total: 1_000_000, dueRows: 10_000, liveClaims: 5_000})
	var c claimCost
	for b.Loop() {
		c = s.explainClaim(b, 16)
	}
	if c.Claimed != 16 || c.ScheduleReads > claimReadBudget(16) || c.Buffers > claimBufferBudget(16) {
		b.Fatalf("claim of 16 over 1M rows: claimed %d, read %d rows, %d buffers\n%s", c.Claimed, c.ScheduleReads, c.Buffers, c.Plan)
	}
	b.ReportMetric(float64(c.ScheduleReads), "schedule-rows/claim")
	b.ReportMetric(float64(c.Buffers), "buffers/claim")
}

// BenchmarkAdmit drains 10,000 due schedules with 1, 2, 4 and 8 concurrent
// claimers (each a replica with its own pool, running schedule.Round with
// page 16 and commit parallelism 4: claim + decide + verified commit), and
// in the same run a baseline: the same writes (run, attempt, two events,
// schedule update) as a plain READ COMMITTED transaction without claim or
// verification, at the same number of connections. Each reports admits/s
// and the client's and the server's CPU time per admission (cpuMeter).
// Commit parallelism 4 is the scheduler's default; a round is a barrier
// (it claims again only when all its commits are done), so at one claimer
// a larger parallelism admits faster.
func BenchmarkAdmit(b *testing.B) {
	s := newStore(b)
	triggers := s.buildDueSchedules(b, benchDueSchedules)
	meter := s.cpuMeter(b)
	for _, claimers := range []int{1, 2, 4, 8} {
		for _, path := range []string{"row", "page"} {
			b.Run(fmt.Sprintf("claimers=%d/path=%s", claimers, path), func(b *testing.B) {
				var rate float64
				var cpu cpuUse
				for b.Loop() {
					b.StopTimer()
					s.resetDue(b)
					b.StartTimer()
					start := meter.used(b)
					rate = s.drainWithRounds(b, claimers, path == "row")
					cpu = meter.used(b).since(start)
				}
				b.ReportMetric(rate, "admits/s")
				cpu.report(b)
			})
		}
		b.Run(fmt.Sprintf("baseline/conns=%d", claimers*benchParallel), func(b *testing.B) {
			var rate float64
			var cpu cpuUse
			for b.Loop() {
				b.StopTimer()
				s.resetDue(b)
				b.StartTimer()
				start := meter.used(b)
				rate = s.drainPlain(b, triggers, claimers*benchParallel)
				cpu = meter.used(b).since(start)
			}
			b.ReportMetric(rate, "admits/s")
			cpu.report(b)
		})
	}
}

// cpuMeter measures the CPU time this process and the PostgreSQL server
// use. On a shared machine admits/s moves with whatever else runs there;
// CPU per admission moves far less, and on an otherwise idle machine it is
// what bounds the rate (the same cores run the client and the server).
type cpuMeter struct{ cpumeter.Meter }

// cpuMeter meters the server of one of the store's backends.
func (s *store) cpuMeter(b *testing.B) cpuMeter {
	b.Helper()
	var backend int
	if err := s.super.QueryRow(context.Background(), `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		b.Fatal(err)
	}
	return cpuMeter{cpumeter.New(b, backend)}
}

// cpuUse is CPU time used by this process (the client) and the server.
type cpuUse struct{ cpumeter.Use }

func (m cpuMeter) used(b *testing.B) cpuUse { return cpuUse{m.Used(b)} }

func (u cpuUse) since(start cpuUse) cpuUse { return cpuUse{u.Since(start.Use)} }

// report gives both per admission of one drain.
func (u cpuUse) report(b *testing.B) {
	b.ReportMetric(float64(u.Process.Microseconds())/benchDueSchedules, "client-cpu-µs/admit")
	b.ReportMetric(float64(u.Server.Microseconds())/benchDueSchedules, "server-cpu-µs/admit")
}

// buildDueSchedules publishes one real task (digest and execution revision
// valid) and copies n triggers pinned to it, each with a real content
// digest, so every admission verifies exactly as in production.
func (s *store) buildDueSchedules(b *testing.B, n int) []string {
	b.Helper()
	ctx := context.Background()
	// Yearly: an admitted schedule's next occurrence is never inside the
	// run, so each of the n rows is admitted exactly once per drain.
	yearly := trigger.Cron{Expression: "0 0 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}
	d := s.publishCron(b, "bench", yearly)
	spec := trigger.Spec{Name: "tick", Enabled: true, Cron: yearly}
	var heads, revs, scheds [][]any
	out := []string{d.trigger.TriggerID}
	for i := range n - 1 {
		id := ids.New()
		spec.Name = fmt.Sprintf("t%05d", i)
		rev, err := trigger.NewRevision(d.project.ID, id, d.task.TaskID, d.task.Revision, d.task.ContentDigest, 0, id, spec, time.Now().UnixMilli())
		if err != nil {
			b.Fatal(err)
		}
		heads = append(heads, []any{id, d.project.ID, d.task.TaskID, spec.Name, int64(1), int64(0), int64(0)})
		revs = append(revs, []any{id, int64(1), d.project.ID, d.task.TaskID, d.task.Revision, d.task.ContentDigest, trigger.SpecKind,
			spec.Name, true, spec.Cron.Expression, spec.Cron.Timezone, string(spec.Cron.MisfirePolicy), rev.ContentDigest, id, int64(0)})
		scheds = append(scheds, []any{id, d.project.ID, int64(1), int64(1), int64(0), int64(0)})
		out = append(out, id)
	}
	err := pgx.BeginFunc(ctx, s.super, func(tx pgx.Tx) error {
		for _, c := range []struct {
			table string
			cols  []string
			rows  [][]any
		}{
			{"triggers", []string{"id", "project_id", "task_id", "name", "current_revision", "created_at_ms", "updated_at_ms"}, heads},
			{"trigger_revisions", []string{"trigger_id", "revision", "project_id", "task_id", "task_revision", "task_content_digest", "kind",
				"name", "enabled", "cron_expression", "cron_timezone", "misfire_policy", "content_digest", "mutation_id", "created_at_ms"}, revs},
			{"trigger_schedules", []string{"trigger_id", "project_id", "trigger_revision", "state_version", "claim_version", "updated_at_ms"}, scheds},
		} {
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{SchemaName, c.table}, c.cols, pgx.CopyFromRows(c.rows)); err != nil {
				return fmt.Errorf("copy %s: %w", c.table, err)
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// resetDue deletes every admission and makes every schedule due at one
// shared instant a second ago, unclaimed; then vacuums so each iteration
// starts from the same physical state.
func (s *store) resetDue(b *testing.B) {
	b.Helper()
	for _, stmt := range []string{
		`TRUNCATE qinglong.run_events, qinglong.attempts, qinglong.runs`,
		`UPDATE qinglong.trigger_schedules SET next_fire_at_ms = ` + ClockMsSQL + ` - 1000,
			last_scheduled_at_ms = NULL, claim_owner = NULL, claim_token = NULL, claim_expires_at_ms = NULL,
			state_version = state_version + 1, updated_at_ms = 0`,
		`VACUUM ANALYZE`,
	} {
		if _, err := s.super.Exec(context.Background(), stmt); err != nil {
			b.Fatalf("%s: %v", stmt, err)
		}
	}
}

// drainWithRounds runs claimers replicas until no due row is left and
// returns admissions per second; perRow commits each decision in its own
// transaction (perRowStore) instead of the page at once.
func (s *store) drainWithRounds(b *testing.B, claimers int, perRow bool) float64 {
	b.Helper()
	var admitted atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for i := range claimers {
		var rt schedule.Store = s.openRuntimeSized(b, fmt.Sprintf("bench-%d", i), benchParallel+1)
		if perRow {
			rt = perRowStore{Store: rt, sem: make(chan struct{}, benchParallel)}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfg := schedule.RoundConfig{PageSize: benchPage, GraceMs: testGraceMs, Parallel: benchParallel, NewIDs: ids.Fill}
			for {
				sum, err := schedule.Round(context.Background(), rt, cfg)
				if err != nil || len(sum.Errors) > 0 {
					b.Errorf("round: %v %v", err, sum.Errors)
					return
				}
				admitted.Add(int64(sum.Counts[schedule.Admitted]))
				if sum.Taken == 0 {
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if got := admitted.Load(); got != benchDueSchedules {
		b.Fatalf("%d claimers admitted %d of %d due schedules", claimers, got, benchDueSchedules)
	}
	return float64(benchDueSchedules) / elapsed.Seconds()
}

// perRowStore commits each decision of a page in its own transaction, at
// most cap(sem) at once across the page's groups: the admission path before
// pages were committed at once, kept as the benchmarks' baseline.
type perRowStore struct {
	schedule.Store
	sem chan struct{}
}

func (s perRowStore) ScheduleCommitPage(ctx context.Context, ps []schedule.CommitParams) ([]schedule.CommitResult, error) {
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

func (s *store) openRuntimeSized(b *testing.B, owner string, conns int32) *Runtime {
	b.Helper()
	prefix := s.roles.Runtime[:len(s.roles.Runtime)-len(RoleRuntime)]
	rt, err := OpenRuntime(context.Background(), s.url(RoleRuntime), RuntimeConfig{Owner: owner, RolePrefix: prefix, MaxConns: conns})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(rt.Close)
	return rt
}

// drainPlain is the baseline: per schedule one plain transaction with the
// admission's writes and nothing else.
func (s *store) drainPlain(b *testing.B, triggers []string, conns int) float64 {
	b.Helper()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(s.url(RoleRuntime))
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = int32(conns)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	var project, taskID, execID string
	var scheduled int64
	err = s.super.QueryRow(ctx, `SELECT s.project_id, tr.task_id, er.id, s.next_fire_at_ms
		FROM qinglong.trigger_schedules s JOIN qinglong.trigger_revisions tr ON tr.trigger_id = s.trigger_id
		JOIN qinglong.execution_revisions er ON er.task_id = tr.task_id LIMIT 1`).Scan(&project, &taskID, &execID, &scheduled)
	if err != nil {
		b.Fatal(err)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(len(triggers)) {
					return
				}
				if err := plainAdmission(ctx, pool, triggers[i], project, taskID, execID, scheduled); err != nil {
					b.Errorf("plain admission: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return float64(len(triggers)) / time.Since(start).Seconds()
}

// The baseline's statements: the admission's rows as plain inserts.
const (
	plainRunInsert = `INSERT INTO qinglong.runs
		(id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id, idempotency_key,
		 scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'queued', 2, 2, $10, $10, $10)`
	plainAttemptInsert = `INSERT INTO qinglong.attempts (id, run_id, number, executor, state, created_at_ms, updated_at_ms)
		VALUES ($1, $2, 1, $3, 'claimed', $4, $4)`
	plainEventInsert = `INSERT INTO qinglong.run_events (run_id, seq, name, payload, created_at_ms) VALUES ($1, $2, $3, $4, $5)`
)

func plainAdmission(ctx context.Context, pool *pgxpool.Pool, triggerID, project, taskID, execID string, scheduled int64) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		runID, now := ids.New(), time.Now().UnixMilli()
		b := &pgx.Batch{}
		b.Queue(plainRunInsert, runID, project, taskID, int64(1), triggerID, int64(1), execID,
			schedule.IdempotencyKey(triggerID, 1, scheduled), scheduled, now)
		b.Queue(plainAttemptInsert, ids.New(), runID, "remote_worker", now)
		b.Queue(plainEventInsert, runID, int64(1), run.EventCreated, `{}`, now)
		b.Queue(plainEventInsert, runID, int64(2), run.EventQueued, `{}`, now)
		b.Queue(`UPDATE qinglong.trigger_schedules SET next_fire_at_ms = $2, last_scheduled_at_ms = $3, state_version = state_version + 1
			WHERE trigger_id = $1`, triggerID, scheduled+60_000, scheduled)
		return tx.SendBatch(ctx, b).Close()
	})
}

// BenchmarkReadiness is one readiness check on a runtime connection, as a
// replica runs it at start.
func BenchmarkReadiness(b *testing.B) {
	e := newEnv(b)
	r := e.openRuntime(b, "replica-a", testLease)
	for b.Loop() {
		if err := r.Ready(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}
