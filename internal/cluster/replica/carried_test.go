package replica

import (
	"context"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/cluster/recovery"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/metricstest"
)

// TestClaimsALostDatabaseLeftHeldAreGivenBackByTheFreshActivation: a
// replica whose backends are terminated while it holds a burst claimed
// ahead of its instant cannot commit it, and cannot give the claims back
// through its dead pool; its fresh activation gives them back, so the
// burst is admitted seconds after its instant, once, instead of after the
// 30 s lease the claims were taken with; its /metrics count them.
func TestClaimsALostDatabaseLeftHeldAreGivenBackByTheFreshActivation(t *testing.T) {
	t.Parallel()
	const triggers = 50
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("carried", triggers, "*/5 * * * * *"))
	a := startReplica(t, bin, env, "replica-a", "--claim-ahead", "2s", "--metrics-addr", "127.0.0.1:0")
	a.await(t, CodeReady, 30*time.Second)
	metricsAddr, _ := a.await(t, CodeMetricsListening, time.Second)["addr"].(string)
	var instant, held int64
	eventually(t, pgstore.DefaultLease, "replica-a to hold rows at least a second before their instant", func() bool {
		if err := env.Super.QueryRow(context.Background(), `WITH ahead AS (SELECT next_fire_at_ms + due_offset_ms AS due FROM qinglong.trigger_schedules
			        WHERE claim_owner = 'replica-a' AND next_fire_at_ms + due_offset_ms > `+pgstore.ClockMsSQL+` + 1000)
			SELECT coalesce(min(due), 0), count(*) FILTER (WHERE due = (SELECT min(due) FROM ahead)) FROM ahead`).Scan(&instant, &held); err != nil {
			t.Fatal(err)
		}
		return held == triggers
	})
	terminateBackends(t, env, "replica-a")
	given := a.await(t, CodeClaimsGivenBack, 30*time.Second)
	if rows, _ := given["rows"].(float64); int64(rows) != held {
		t.Fatalf("the fresh activation gave back %v rows, want the %d held ahead of %d:\n%s", given["rows"], held, instant, a.logs)
	}
	// Given back before the fresh activation's startup recovery, which the
	// rows need not wait for.
	eventually(t, 30*time.Second, "the fresh activation to open admission", func() bool { return len(a.logs.withCode(CodeReady)) == 2 })
	if codes := a.logs.codes(); slices.Index(codes, CodeClaimsGivenBack) > lastIndex(codes, recovery.CodeConverged) {
		t.Fatalf("the claims were given back after the fresh activation's startup recovery:\n%s", a.logs)
	}
	m := metricstest.Scrape(t, "http://"+metricsAddr+"/metrics")
	if released, failed := m.Value(t, "qinglong_scheduler_claims_given_back_total", "result", metrics.GiveBackReleased),
		m.Value(t, "qinglong_scheduler_claims_given_back_total", "result", metrics.GiveBackFailed); int64(released) != held || failed != 0 {
		t.Fatalf("/metrics counts %g claims given back and %g failed; the fresh activation gave back %d", released, failed, held)
	}
	eventually(t, 15*time.Second, "the burst given back to be admitted", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE scheduled_for_ms = $1`, instant) == held
	})
	lag := env.Int(t, `SELECT max(created_at_ms - scheduled_for_ms) FROM qinglong.runs WHERE scheduled_for_ms = $1`, instant)
	if lag >= pgstore.DefaultLease.Milliseconds()/2 {
		t.Fatalf("the burst given back was admitted up to %d ms after its instant: its claims were waited out", lag)
	}
	a.signal(t, syscall.SIGTERM, 15*time.Second)
	if o := env.Count(t); o.Duplicates != 0 || o.Malformed != 0 {
		t.Fatalf("occurrences %+v", o)
	}
	t.Logf("%d rows held ahead of %d given back by the fresh activation; admitted at most %d ms after it", held, instant, lag)
}

// lastIndex is the index of the last v in s, -1 when there is none.
func lastIndex(s []string, v string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == v {
			return i
		}
	}
	return -1
}
