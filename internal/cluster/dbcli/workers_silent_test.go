package dbcli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A worker whose process froze keeps its session live until the lease
// passes, so `ql workers list` says how long ago each heartbeat was, in
// database time, and once a worker with a live session has gone two
// heartbeats unheard, that it is silent and for how long: in the table's
// STATE and in -o json.
func TestAWorkerNotHeardFromForTwoHeartbeatsIsListedSilentWithItsHeartbeatsAge(t *testing.T) {
	t.Parallel()
	c := clustertest.New(t)
	env := map[string]string{EnvAdminURL: c.URL(pgstore.RoleAdmin)}
	rt := c.Runtime(t, "workers-test", 30*time.Second)
	c.ConnectWorker(t, rt, "build-01", nil, 2)
	type shown struct {
		State          string `json:"state"`
		Sessions       int    `json:"sessions"`
		HeartbeatAgeMs *int64 `json:"heartbeatAgeMs"`
		SilentForMs    int64  `json:"silentForMs"`
	}
	list := func() (string, shown) {
		t.Helper()
		table, _, err := workers(t, env, "list")
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := workers(t, env, "list", "-o", "json")
		var l struct{ Workers []shown }
		if err != nil || json.Unmarshal([]byte(out), &l) != nil || len(l.Workers) != 1 {
			t.Fatalf("list -o json: %v %q", err, out)
		}
		return table, l.Workers[0]
	}
	table, w := list()
	if w.State != "active" || w.SilentForMs != 0 || w.HeartbeatAgeMs == nil || *w.HeartbeatAgeMs >= pgstore.SilentAfter.Milliseconds() ||
		!strings.Contains(table, "build-01  active  ") || !strings.Contains(table, "s ago)") {
		t.Fatalf("a worker heartbeating: %+v\n%s\nwant active, its heartbeat's age under %v, not silent", w, table, pgstore.SilentAfter)
	}
	// The process froze 25s ago: its session lives on (its lease, 45s from
	// its last heartbeat, has not passed).
	c.Exec(t, `UPDATE qinglong.worker_sessions SET created_at_ms = created_at_ms - 25000, heartbeat_at_ms = heartbeat_at_ms - 25000`)
	table, w = list()
	if w.Sessions != 1 || w.State != "active" || w.SilentForMs < 25_000 || w.HeartbeatAgeMs == nil || *w.HeartbeatAgeMs < 25_000 {
		t.Fatalf("a worker unheard for 25s: %+v; want its live session, silent 25s or more", w)
	}
	if !strings.Contains(table, "build-01  active (silent 2") || !strings.Contains(table, "s ago)") {
		t.Fatalf("the table of a worker unheard for 25s:\n%s\nwant STATE active (silent 25s) and the heartbeat's age", table)
	}
}
