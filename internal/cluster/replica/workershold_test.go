package replica

import (
	"encoding/json"
	"net/http"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/metricstest"
)

// holdLease is the run lease of the replicas of these tests: the shortest,
// so that a hold is short.
const holdLease = "3s"

// workerBeside starts a replica, registers a worker session through its
// ingress and returns the replica, still running: a cluster whose workers
// are live in the database.
func workerBeside(t *testing.T, bin string, env *clustertest.Env, owner string) *child {
	t.Helper()
	admin, err := pgstore.OpenAdmin(t.Context(), env.URL(pgstore.RoleAdmin))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	cred, err := admin.WorkerCreate(t.Context(), "w-"+owner, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	a := startHoldLeased(t, bin, env, owner)
	a.await(t, CodeReady, 30*time.Second)
	workerAddr, _ := a.await(t, CodeWorkerListening, time.Second)["addr"].(string)
	if status, raw := post(t, http.DefaultClient, "http://"+workerAddr+workerproto.PathRegister, cred,
		workerproto.RegisterRequest{Capacity: 1, Version: "test"}); status != http.StatusOK {
		t.Fatalf("register: %d %s", status, raw)
	}
	return a
}

// workersLeftBy starts a replica beside a live worker session and stops
// it: a database whose workers were live when its last replica stopped.
func workersLeftBy(t *testing.T, bin string, env *clustertest.Env, owner string) {
	t.Helper()
	workerBeside(t, bin, env, owner).signal(t, syscall.SIGTERM, 20*time.Second)
}

// startHoldLeased starts a replica under the hold tests' run lease.
func startHoldLeased(t *testing.T, bin string, env *clustertest.Env, owner string) *child {
	t.Helper()
	return startReplica(t, bin, env, owner, "--run-lease", holdLease)
}

// requireNotHeld starts a replica and fails unless it is ready without a
// hold; what names the case in the failure.
func requireNotHeld(t *testing.T, bin string, env *clustertest.Env, owner, what string) {
	t.Helper()
	b := startHoldLeased(t, bin, env, owner)
	b.await(t, CodeReady, 30*time.Second)
	if held := b.logs.withCode(CodeHeldForWorkers); len(held) != 0 {
		t.Fatalf("%s was held: %v", what, held)
	}
}

// rewind moves every time a replica's heartbeat row holds back by ms, as a
// database restored from a dump taken that long ago shows them.
func rewind(t *testing.T, env *clustertest.Env, ms int64) {
	t.Helper()
	if _, err := env.Super.Exec(t.Context(), `UPDATE qinglong.replica_heartbeats
		SET started_at_ms = started_at_ms - $1, last_seen_at_ms = last_seen_at_ms - $1,
		    expires_at_ms = expires_at_ms - $1, stopped_at_ms = stopped_at_ms - $1`, ms); err != nil {
		t.Fatal(err)
	}
}

// A replica that starts on a database where no replica was seen for longer
// than a run lease while a worker session is live (a restore: the workers
// may run commands the database no longer knows) holds admission and
// dispatch for one run lease: it says so, with why and until when, its
// /readyz says held_for_workers and its worker ingress answers 503 — only
// then is it ready.
func TestAReplicaOnADatabaseNoReplicaRanForALeaseWhileWorkersLivedHoldsAdmissionAndDispatchForARunLease(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	workersLeftBy(t, bin, env, "replica-before")
	rewind(t, env, time.Minute.Milliseconds())

	b := startHoldLeased(t, bin, env, "replica-after")
	held := b.await(t, CodeHeldForWorkers, 30*time.Second)
	if code, reason := b.readyz(t); code != http.StatusServiceUnavailable || reason != ReasonHeldForWorkers {
		t.Errorf("/readyz during the hold: %d %q, want 503 %q", code, reason, ReasonHeldForWorkers)
	}
	workerAddr, _ := b.await(t, CodeWorkerListening, time.Second)["addr"].(string)
	status, raw := post(t, http.DefaultClient, "http://"+workerAddr+workerproto.PathHeartbeat, workerproto.CredentialPrefix+"whatever",
		workerproto.HeartbeatRequest{SessionID: uuid.NewString()})
	var e workerproto.Error
	if err := json.Unmarshal(raw, &e); err != nil || status != http.StatusServiceUnavailable || e.Code != workerproto.CodeUnavailable {
		t.Errorf("worker request during the hold: %d %s, want 503 %s", status, raw, workerproto.CodeUnavailable)
	}
	if held["hold_ms"] != float64(3000) || held["live_worker_sessions"] != true || held["until"] == nil {
		t.Errorf("hold line %v, want hold_ms 3000, live_worker_sessions and until", held)
	}
	if ago, _ := held["last_replica_seen_ms_ago"].(float64); ago < float64(time.Minute.Milliseconds()) {
		t.Errorf("hold line says a replica was last seen %v ms ago, want at least a minute", ago)
	}
	b.await(t, CodeReady, 30*time.Second)
	codes := b.logs.codes()
	if slices.Index(codes, CodeHeldForWorkers) > slices.Index(codes, CodeReady) {
		t.Errorf("ready before the hold: %v", codes)
	}
}

// A fresh installation (no replica ever beat) is never held, even with a
// worker session in the database.
func TestAReplicaOnADatabaseNoReplicaEverBeatInIsNotHeld(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	workersLeftBy(t, bin, env, "replica-first")
	if _, err := env.Super.Exec(t.Context(), `DELETE FROM qinglong.replica_heartbeats`); err != nil {
		t.Fatal(err)
	}
	requireNotHeld(t, bin, env, "replica-fresh", "a replica with no heartbeat ever")
}

// A rolling restart — another replica alive beside live workers — is never
// held, however long ago the restarted replica itself last beat.
func TestAReplicaStartingBesideALiveReplicaIsNotHeld(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	workerBeside(t, bin, env, "replica-alive")
	if _, err := env.Super.Exec(t.Context(), `INSERT INTO qinglong.replica_heartbeats
		(replica_id, host, pid, version, started_at_ms, last_seen_at_ms, expires_at_ms, stopped_at_ms)
		VALUES ('replica-rolled', 'h', 1, 'v', 1, 1, 2, 1)`); err != nil {
		t.Fatal(err)
	}
	requireNotHeld(t, bin, env, "replica-rolled", "a replica starting beside a live one")
}

// Replicas started together on a restored database all hold, until the
// end of the first one's hold at least: the second reads the hold the
// first recorded before its startup recovery marked the workers' sessions
// expired, so it does not mistake that recovery's work for a database
// with nothing live, nor a held replica for a serving one.
func TestReplicasStartedTogetherAfterARestoreAllHold(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	workersLeftBy(t, bin, env, "replica-before")
	rewind(t, env, time.Minute.Milliseconds())
	// The worker's session as a dump taken a minute ago shows it: its lease
	// ran out since, so the first replica's startup recovery expires it.
	if _, err := env.Super.Exec(t.Context(), `UPDATE qinglong.worker_sessions
		SET created_at_ms = created_at_ms - 60000, heartbeat_at_ms = heartbeat_at_ms - 60000,
		    lease_expires_at_ms = lease_expires_at_ms - 60000, updated_at_ms = updated_at_ms - 60000`); err != nil {
		t.Fatal(err)
	}

	// A hold long enough for the second replica to start inside it.
	const lease = "20s"
	first := startReplica(t, bin, env, "replica-first", "--run-lease", lease)
	firstHeld := first.await(t, CodeHeldForWorkers, 30*time.Second)
	var live bool
	if err := env.Super.QueryRow(t.Context(), `SELECT EXISTS (SELECT 1 FROM qinglong.worker_sessions
		WHERE state IN ('active', 'draining'))`).Scan(&live); err != nil {
		t.Fatal(err)
	}
	if live {
		t.Fatal("the first replica's startup recovery left the worker session live: the second start would not show the fault")
	}

	second := startReplica(t, bin, env, "replica-second", "--run-lease", lease)
	secondHeld := second.await(t, CodeHeldForWorkers, 30*time.Second)
	if secondHeld["joined"] != true || secondHeld["until"] != firstHeld["until"] {
		t.Errorf("second hold %v, want it joined to the first one's, until %v", secondHeld, firstHeld["until"])
	}
	if code, reason := second.readyz(t); code != http.StatusServiceUnavailable || reason != ReasonHeldForWorkers {
		t.Errorf("/readyz of the second replica inside the first one's hold: %d %q, want 503 %q", code, reason, ReasonHeldForWorkers)
	}
	first.await(t, CodeReady, 60*time.Second)
	second.await(t, CodeReady, 60*time.Second)
	codes := second.logs.codes()
	if slices.Index(codes, CodeHeldForWorkers) > slices.Index(codes, CodeReady) {
		t.Errorf("second replica ready before its hold: %v", codes)
	}
}

// A replica holding for workers right after its start answers a scrape of
// /metrics on its API listener, with a token it never checked before:
// up and not ready, its readiness state held_for_workers, so Prometheus
// reads the hold rather than a replica down.
func TestAReplicaHoldingForWorkersAnswersAScrapeOfItsAPIListenerSayingItHolds(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	token := env.Token(t, "prometheus", apitoken.Read)
	workersLeftBy(t, bin, env, "replica-before")
	rewind(t, env, time.Minute.Milliseconds())

	b := startReplica(t, bin, env, "replica-held", "--run-lease", "20s")
	b.await(t, CodeHeldForWorkers, 30*time.Second)
	m := metricstest.ScrapeWithToken(t, "http://"+b.addr+"/metrics", token)
	if code, reason := b.readyz(t); code != http.StatusServiceUnavailable || reason != ReasonHeldForWorkers {
		t.Fatalf("the hold ended before the scrape was checked (/readyz %d %q); the scrape proves nothing", code, reason)
	}
	if got := m.Value(t, "qinglong_ready"); got != 0 {
		t.Errorf("qinglong_ready = %g during the hold, want 0", got)
	}
	if got := m.Value(t, "qinglong_readiness_state", "state", ReasonHeldForWorkers); got != 1 {
		t.Errorf("qinglong_readiness_state{state=held_for_workers} = %g during the hold, want 1", got)
	}
}
