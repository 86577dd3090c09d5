package peers

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/availability"
	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/cluster/scheduler"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// qinglongAligned: QingLong's cluster scheduler (one replica in process:
// the coordinator over the runtime store, page 256), n triggers whose
// cursors are all the same boundary, started before it so it wakes at the
// boundary (PEERS_CLAIM_AHEAD, e.g. 1s, claims ahead of it).
func qinglongAligned(b *testing.B, srv *pgtest.Srv, n int) {
	eachBoundary(b, srv, n, func(env *clustertest.Env) result { return qinglongRun(b, env, n) })
}

// eachBoundary runs drain once per benchmark iteration over n aligned
// triggers on srv and reports the last drain.
func eachBoundary(b *testing.B, srv *pgtest.Srv, n int, drain func(*clustertest.Env) result) {
	env := alignedTriggers(b, srv, n)
	var last result
	for b.Loop() {
		last = drain(env)
	}
	last.report(b)
}

// alignedTriggers is a database on srv holding n triggers of a yearly
// expression: once admitted at the boundary, a trigger is not due again
// within a run, however long its drain takes.
func alignedTriggers(b *testing.B, srv *pgtest.Srv, n int) *clustertest.Env {
	env := clustertest.NewOn(b, srv)
	docs := make([]string, max(1, n/1000))
	for i := range docs {
		docs[i] = clustertest.Triggers(fmt.Sprintf("aligned-%d", i), n/len(docs), "0 0 1 1 *")
	}
	env.Apply(b, docs...)
	return env
}

// alignOn empties the Runs and makes every trigger due at the next boundary
// at least 5 s away, which it returns, from a clean checkpoint.
func alignOn(b *testing.B, env *clustertest.Env) time.Time {
	b.Helper()
	env.Exec(b, `TRUNCATE qinglong.run_events, qinglong.attempts, qinglong.runs`)
	boundary := nextBoundary(5 * time.Second)
	env.Exec(b, `UPDATE qinglong.trigger_schedules
		SET next_fire_at_ms = $1, last_scheduled_at_ms = NULL, claim_owner = NULL, claim_token = NULL,
		    claim_expires_at_ms = NULL, state_version = state_version + 1`, boundary.UnixMilli())
	env.Exec(b, `VACUUM ANALYZE qinglong.trigger_schedules`)
	env.Exec(b, `CHECKPOINT`)
	return boundary
}

// runsCommitted is the result of a drain read from the Runs' commit
// timestamps.
func runsCommitted(b *testing.B, env *clustertest.Env, boundary time.Time) result {
	b.Helper()
	return measure(b, env.Super, `SELECT trigger_id::text || ':' || scheduled_for_ms AS key,
		extract(epoch FROM pg_xact_commit_timestamp(xmin)) * 1000 AS commit_ms
		FROM qinglong.runs`, boundary.UnixMilli())
}

func qinglongRun(b *testing.B, env *clustertest.Env, n int) result {
	b.Helper()
	boundary := alignOn(b, env)
	rt := env.Runtime(b, "peer", pgstore.DefaultLease)
	cfg := scheduler.Config{Owner: "peer", PageSize: scheduler.MaxPageSize}
	if v := os.Getenv("PEERS_CLAIM_AHEAD"); v != "" {
		ahead, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("PEERS_CLAIM_AHEAD=%q: %v (a duration such as 1s; 0s is off, the default)", v, err)
		}
		cfg.ClaimAhead = ahead
	}
	c, err := scheduler.New(cfg,
		rt, slog.New(slog.NewTextHandler(io.Discard, nil)), availability.New())
	if err != nil {
		b.Fatal(err)
	}
	meter := newCPUMeter(b, env.Super)
	start := meter.used(b)
	if err := c.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := c.Stop(context.Background()); err != nil {
			b.Error(err)
		}
	}()
	waitCount(b, env.Super, `SELECT count(*) FROM qinglong.runs`, n, 5*time.Minute, 100*time.Millisecond)
	cpu := meter.used(b).since(start)
	r := runsCommitted(b, env, boundary)
	r.CPU = &cpu
	return r
}
