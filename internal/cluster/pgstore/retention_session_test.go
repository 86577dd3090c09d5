package pgstore

import (
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/retention"
)

// A server restart ends every session of the maintenance pool, idle ones
// included; the next retention batch runs on a fresh connection rather than
// failing on a dead one and blaming the maintenance role.
func TestARetentionBatchAfterItsSessionsWereTerminatedRunsOnAFreshConnection(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	m := e.openMaintenance(t)
	batch := retention.Batch{Kind: retention.KindRuns, OlderThan: time.Hour, Limit: 10}
	if _, _, err := m.RetentionBatch(t.Context(), batch); err != nil {
		t.Fatalf("first batch: %v", err)
	}
	var ended int
	if err := e.super.QueryRow(t.Context(), `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND usename = $1`, e.roles.Maintenance).Scan(&ended); err != nil || ended == 0 {
		t.Fatalf("terminated %d maintenance sessions, %v; want at least one", ended, err)
	}
	if _, _, err := m.RetentionBatch(t.Context(), batch); err != nil {
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
	_, _, err = m.RetentionBatch(t.Context(), retention.Batch{Kind: retention.KindRuns, OlderThan: time.Hour, Limit: 10})
	if err == nil || !strings.Contains(err.Error(), "it needs the maintenance role (`ql db roles`)") {
		t.Fatalf("a batch as the runtime role: %v, want it to name the maintenance role", err)
	}
}
