package replica

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/metricstest"
)

// A replica exports its database's size, read through its runtime role,
// and its run logs' (rows of the database); it has no data directory, so
// no free space of one.
func TestAReplicaExportsItsDatabaseAndRunLogsSizes(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("sizes", 2, clustertest.QuietCron()))
	env.MakeDue(t, 0)
	p := serveInProcess(t, metricsReplicaFlags(env, "replica-sizes"))
	eventually(t, 30*time.Second, "the due Runs admitted", func() bool { return env.Int(t, `SELECT count(*) FROM qinglong.runs`) == 2 })
	env.SeedFinished(t, 200, time.Hour, 64)
	p.awaitReady(t)
	addr, _ := p.logs.withCode(CodeMetricsListening)[0]["addr"].(string)
	low := env.Int(t, `SELECT pg_database_size(current_database())`)
	m := metricstest.Scrape(t, "http://"+addr+"/metrics")
	high := env.Int(t, `SELECT pg_database_size(current_database())`)
	// The replica's own writes (heartbeats, rounds) may extend a table
	// between the reads: the size lies within a few pages of them.
	if got := m.Value(t, "qinglong_database_size_bytes"); got < float64(low)-1<<20 || got > float64(high)+1<<20 {
		t.Errorf("qinglong_database_size_bytes %.0f; pg_database_size read %d before the scrape and %d after", got, low, high)
	}
	logs := env.Int(t, `SELECT pg_total_relation_size('qinglong.run_log_chunks')`)
	if got := m.Value(t, "qinglong_run_logs_size_bytes"); got != float64(logs) || logs == 0 {
		t.Errorf("qinglong_run_logs_size_bytes %.0f; the log chunks take %d bytes", got, logs)
	}
	if got := m.Value(t, "qinglong_monitor_read_failures_total"); got != 0 {
		t.Errorf("qinglong_monitor_read_failures_total %.0f, want no failed read", got)
	}
	if _, ok := m["qinglong_data_dir_free_bytes"]; ok {
		t.Error("a replica exports qinglong_data_dir_free_bytes; it has no data directory")
	}
}

// A replica's retention passes are counted by what they deleted, each
// kind as the pass's own log record counts it, and the end of the last
// completed pass is exported.
func TestAReplicasRetentionPassCountsWhatItDeleted(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("keep", 1, clustertest.QuietCron()))
	env.MakeDue(t, 0)
	started := time.Now()
	logs, stop := retainingReplica(t, env, "replica-retained")
	eventually(t, 30*time.Second, "the due Run admitted", func() bool { return env.Int(t, `SELECT count(*) FROM qinglong.runs`) == 1 })
	eventually(t, 10*time.Second, "the metrics listener", func() bool { return len(logs.withCode(CodeMetricsListening)) == 1 })
	url := "http://" + logs.withCode(CodeMetricsListening)[0]["addr"].(string) + "/metrics"
	const seeded = 40
	env.SeedFinished(t, seeded, 40*retention.Day, 64)
	var m metricstest.Families
	eventually(t, 30*time.Second, "the seeded Runs counted deleted", func() bool {
		m = metricstest.Scrape(t, url)
		return m.Value(t, "qinglong_retention_deleted_total", "kind", "runs") == seeded
	})
	if last := m.Value(t, "qinglong_retention_last_pass_timestamp_seconds"); last < float64(started.Unix()) || last > float64(time.Now().Unix()+1) {
		t.Errorf("qinglong_retention_last_pass_timestamp_seconds %.0f, want a time since the replica started (%d)", last, started.Unix())
	}
	stop()
	// Every pass that deleted something logged its counts; the passes
	// after the deletion found nothing more (one young Run is left).
	for _, kind := range []string{"runs", "attempts", "events", "logs", "notifications"} {
		var want float64
		for _, rec := range logs.withCode(retention.CodePass) {
			want += rec[kind].(float64)
		}
		if got := m.Value(t, "qinglong_retention_deleted_total", "kind", kind); got != want || (kind != "notifications" && want < seeded) {
			t.Errorf("qinglong_retention_deleted_total{kind=%q} %.0f; the passes logged %.0f (at least %d but notifications)", kind, got, want, seeded)
		}
	}
}
