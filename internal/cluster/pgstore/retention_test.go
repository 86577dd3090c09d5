package pgstore

import (
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// A server restart ends every session of the maintenance pool, idle ones
// included; the next retention batch runs on a fresh connection rather than
// failing on a dead one and blaming the maintenance role.
func TestARetentionBatchAfterItsSessionsWereTerminatedRunsOnAFreshConnection(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	m := e.openMaintenance(t)
	batch := retention.Batch{Kind: retention.KindRuns, OlderThan: time.Hour, Limit: 10}
	if _, err := m.RetentionBatch(t.Context(), batch); err != nil {
		t.Fatalf("first batch: %v", err)
	}
	var ended int
	if err := e.super.QueryRow(t.Context(), `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND usename = $1`, e.roles.Maintenance).Scan(&ended); err != nil || ended == 0 {
		t.Fatalf("terminated %d maintenance sessions, %v; want at least one", ended, err)
	}
	if _, err := m.RetentionBatch(t.Context(), batch); err != nil {
		t.Fatalf("the batch after the sessions ended: %v", err)
	}
}

// Only a refused role points at `ql db roles`: a batch run as a role that
// cannot delete says so.
func TestARetentionBatchWithoutTheMaintenancePrivilegesNamesTheRoles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	m, err := OpenMaintenance(t.Context(), e.url(RoleRuntime), e.prefix())
	if err != nil {
		t.Fatalf("open as the runtime role: %v", err)
	}
	t.Cleanup(m.Close)
	_, err = m.RetentionBatch(t.Context(), retention.Batch{Kind: retention.KindRuns, OlderThan: time.Hour, Limit: 10})
	if err == nil || !strings.Contains(err.Error(), "it needs the maintenance role (`ql db roles`)") {
		t.Fatalf("a batch as the runtime role: %v, want it to name the maintenance role", err)
	}
}

// On the cluster a running attempt's log_bytes grows with each chunk a
// worker sends, so the log cap counts a running command's log as it is now
// (unlike SQLite, no file sizes are needed) and never deletes it: finished
// logs make room for it, oldest first.
func TestTheLogCapCountsARunningAttemptsChunksAndNeverDeletesThem(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "capped", 1)
	w := s.newWorker(t, "w1", nil, 1)
	l, _ := s.started(t, w)
	if _, err := s.runtime.AppendAttemptLog(t.Context(), w.WorkerIdentity, workerproto.LogRequest{Lease: l, Offset: 0, Data: []byte(strings.Repeat("r", 150))}, testSettings); err != nil {
		t.Fatalf("append: %v", err)
	}
	var template string
	if err := s.super.QueryRow(t.Context(), `SELECT run_id::text FROM qinglong.attempts WHERE id = $1`, l.AttemptID).Scan(&template); err != nil {
		t.Fatal(err)
	}
	var now int64
	if err := s.super.QueryRow(t.Context(), `SELECT `+ClockMsSQL).Scan(&now); err != nil {
		t.Fatal(err)
	}
	var finished []string
	for _, age := range []time.Duration{3, 2, 1} {
		runs, err := s.seedFinished(t.Context(), template, 1, now-(age*retention.Day).Milliseconds(), 100)
		if err != nil {
			t.Fatal(err)
		}
		finished = append(finished, runs...)
	}
	m := s.openMaintenance(t)
	// 300 finished bytes and 150 running: a 250-byte cap frees 200.
	rep, err := retention.Pass(t.Context(), m, retention.Policy{LogBytes: 250}, retention.Options{BatchSize: 2, Share: 1, Budget: time.Minute})
	if err != nil || rep.Total != (retention.Deleted{Logs: 2, LogBytes: 200}) {
		t.Fatalf("the pass deleted %+v, %v; want the two oldest finished logs", rep.Total, err)
	}
	if has, err := s.hasLog(t.Context(), l.AttemptID); err != nil || !has {
		t.Fatalf("the running attempt's log: kept %v, %v; want it kept", has, err)
	}
	if has, err := s.hasLog(t.Context(), s.attemptOfRun(t, finished[2])); err != nil || !has {
		t.Fatalf("the newest finished log: kept %v, %v; want it kept", has, err)
	}
}

func (s *store) attemptOfRun(t *testing.T, runID string) string {
	t.Helper()
	var id string
	if err := s.super.QueryRow(t.Context(), `SELECT id::text FROM qinglong.attempts WHERE run_id = $1`, runID).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}
