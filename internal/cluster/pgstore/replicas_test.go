package pgstore

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/retention"
)

func beat(startedAtMs int64) ReplicaBeat {
	return ReplicaBeat{Host: "host-a", Version: "v1.2.3", PID: 4242, TTL: time.Minute, StartedAtMs: startedAtMs}
}

// mustBeat beats and fails the test on an error.
func mustBeat(t *testing.T, rt *Runtime, b ReplicaBeat) BeatAnswer {
	t.Helper()
	a, err := rt.Beat(t.Context(), b)
	if err != nil {
		t.Fatalf("beat: %v", err)
	}
	return a
}

func liveIDs(t *testing.T, rt *Runtime) (live, listed []string) {
	t.Helper()
	list, err := rt.ReplicaList(t.Context())
	if err != nil {
		t.Fatalf("replica list: %v", err)
	}
	for _, x := range list {
		listed = append(listed, x.ID)
		if x.Live {
			live = append(live, x.ID)
		}
	}
	return live, listed
}

// Every replica's heartbeat shows it live; a row past its expiry by the
// database clock is listed but not live; a replica that stopped gracefully
// is gone from the list, and a late beat of its process does not bring it
// back, while a new process under the same id does.
func TestLiveReplicasAreTheHeartbeatsNeitherExpiredNorStopped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b, c := e.openRuntime(t, "replica-a", testLease), e.openRuntime(t, "replica-b", testLease), e.openRuntime(t, "replica-c", testLease)
	started := map[*Runtime]int64{}
	for _, rt := range []*Runtime{a, b, c} {
		started[rt] = mustBeat(t, rt, beat(0)).StartedAtMs
	}
	if ans := mustBeat(t, a, beat(started[a])); ans.StartedAtMs != started[a] {
		t.Fatalf("second beat answered %+v, want the row's start %d kept", ans, started[a])
	}
	list, err := a.ReplicaList(t.Context())
	if err != nil || len(list) != 3 {
		t.Fatalf("replica list = %+v, %v; want 3 replicas", list, err)
	}
	if x := list[0]; x.ID != "replica-a" || x.Host != "host-a" || x.PID != 4242 || x.Version != "v1.2.3" || !x.Live ||
		x.LastSeenAtMs < x.StartedAtMs || x.ExpiresAtMs != x.LastSeenAtMs+time.Minute.Milliseconds() {
		t.Errorf("replica-a = %+v, want live, its identity, expiry a minute after it was last seen", x)
	}
	e.exec(t, "UPDATE qinglong.replica_heartbeats SET started_at_ms = started_at_ms - 10000, last_seen_at_ms = last_seen_at_ms - 5000, expires_at_ms = last_seen_at_ms - 4000 WHERE replica_id = 'replica-c'")
	if live, listed := liveIDs(t, b); len(live) != 2 || live[0] != "replica-a" || live[1] != "replica-b" || len(listed) != 3 {
		t.Errorf("live %v of %v, want replica-a and replica-b live, replica-c listed expired", live, listed)
	}
	if err := b.BeatStopped(t.Context(), started[b]); err != nil {
		t.Fatalf("stopped: %v", err)
	}
	if ans := mustBeat(t, b, beat(started[b])); ans.StartedAtMs != 0 {
		t.Fatalf("a late beat after the stop answered %+v, want nothing written", ans)
	}
	if live, listed := liveIDs(t, a); len(live) != 1 || live[0] != "replica-a" || len(listed) != 2 {
		t.Errorf("after replica-b stopped: live %v of %v, want replica-a alone live and replica-b not listed", live, listed)
	}
	mustBeat(t, b, beat(0))
	if live, _ := liveIDs(t, a); len(live) != 2 {
		t.Errorf("after replica-b restarted: live %v, want replica-a and replica-b", live)
	}
}

// Two processes given one replica id: the second one's first beat learns
// the first is live, and takes the row; the first one's beats then write
// nothing and learn who took it, and its stop does not mark the second
// one's row stopped.
func TestTwoProcessesUnderOneReplicaIDNeitherHideNorStopEachOther(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first, second := e.openRuntime(t, "shared", testLease), e.openRuntime(t, "shared", testLease)
	one := mustBeat(t, first, beat(0))
	if one.StartedAtMs == 0 || one.PriorHost != "" || one.PriorLive {
		t.Fatalf("the first process's first beat answered %+v, want the row started and no one before it", one)
	}
	other := ReplicaBeat{Host: "host-b", Version: "v1.2.3", PID: 77, TTL: time.Minute}
	two := mustBeat(t, second, other)
	if two.StartedAtMs == 0 || two.PriorHost != "host-a" || two.PriorPID != 4242 || !two.PriorLive {
		t.Fatalf("the second process's first beat answered %+v, want the row taken from the live host-a pid 4242", two)
	}
	if late := mustBeat(t, first, beat(one.StartedAtMs)); late.StartedAtMs != 0 || late.PriorHost != "host-b" || late.PriorPID != 77 {
		t.Fatalf("the first process's next beat answered %+v, want nothing written and host-b pid 77 named", late)
	}
	if err := first.BeatStopped(t.Context(), one.StartedAtMs); err != nil {
		t.Fatalf("stopped: %v", err)
	}
	list, err := second.ReplicaList(t.Context())
	if err != nil || len(list) != 1 || list[0].Host != "host-b" || !list[0].Live {
		t.Fatalf("after the first process stopped the list is %+v (%v), want host-b live", list, err)
	}
	other.StartedAtMs = two.StartedAtMs
	if again := mustBeat(t, second, other); again.StartedAtMs != two.StartedAtMs {
		t.Fatalf("the second process's next beat answered %+v, want its row kept", again)
	}
}

// The runtime role writes and reads heartbeats but cannot delete one; the
// maintenance role's retention pass removes the rows of replicas gone for
// longer than a day, and only those.
func TestTheRuntimeRoleCannotDeleteHeartbeatsAndRetentionRemovesLongGoneReplicas(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rt := e.openRuntime(t, "replica-a", testLease)
	mustBeat(t, rt, beat(0))
	if _, err := e.conn(t, RoleRuntime).Exec(t.Context(), "DELETE FROM qinglong.replica_heartbeats WHERE false"); sqlState(err) != stateInsufficientPriv {
		t.Errorf("runtime DELETE FROM replica_heartbeats: %v, want permission denied", err)
	}
	day := (25 * time.Hour).Milliseconds()
	e.exec(t, "INSERT INTO qinglong.replica_heartbeats (replica_id, host, pid, version, started_at_ms, last_seen_at_ms, expires_at_ms) SELECT 'gone', 'h', 1, 'v', n - $1::bigint, n - $1::bigint, n - $1::bigint + 1 FROM (SELECT "+ClockMsSQL+" AS n) x", day)
	m, err := OpenMaintenance(t.Context(), e.url(RoleMaintenance), e.prefix())
	if err != nil {
		t.Fatalf("open maintenance: %v", err)
	}
	t.Cleanup(m.Close)
	if _, err := m.RetentionBatch(t.Context(), retention.Batch{Kind: retention.KindRuns, OlderThan: time.Hour, Limit: 10}); err != nil {
		t.Fatalf("retention batch: %v", err)
	}
	var ids []string
	rows, err := e.super.Query(t.Context(), "SELECT replica_id FROM qinglong.replica_heartbeats ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if len(ids) != 1 || ids[0] != "replica-a" {
		t.Errorf("heartbeats after retention = %v, want replica-a alone", ids)
	}
}
