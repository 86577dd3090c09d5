package replica

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// lostWorker is a worker that registered and took a grant, then vanished.
type lostWorker struct {
	name, cred, session string
}

// connectAndGrant creates a worker credential, registers a session of it
// on rt and pulls one grant, which it never starts.
func connectAndGrant(t *testing.T, env *clustertest.Env, rt *pgstore.Runtime, name string) lostWorker {
	t.Helper()
	cred := env.WorkerCredential(t, name, nil, 1)
	id, err := rt.AuthenticateWorker(t.Context(), cred)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := rt.RegisterWorker(t.Context(), id, workerproto.RegisterRequest{Capacity: 1, Version: "test"}, pgstore.WorkerSettings{})
	if err != nil {
		t.Fatal(err)
	}
	token := make([]byte, 32)
	if _, err := rand.Read(token); err != nil {
		t.Fatal(err)
	}
	reply, err := rt.PullGrants(t.Context(), id, workerproto.PullRequest{SessionID: reg.SessionID, OfferID: ids.New(),
		Token: base64.RawURLEncoding.EncodeToString(token), Max: 1}, pgstore.WorkerSettings{RunLease: pgstore.MaxRunLease})
	if err != nil || len(reply.Grants) != 1 {
		t.Fatalf("pull of %s: %+v, %v; want one grant", name, reply, err)
	}
	return lostWorker{name: name, cred: cred, session: reg.SessionID}
}

// expireSessions makes every live session's lease pass now, as if its
// worker had stopped heartbeating a session lease ago.
func expireSessions(t *testing.T, env *clustertest.Env) {
	t.Helper()
	env.Exec(t, `UPDATE qinglong.worker_sessions SET lease_expires_at_ms = heartbeat_at_ms + 1 WHERE state IN ('active', 'draining')`)
}

// TestAnExpiredWorkerSessionIsLoggedOnceByTheReplicaThatExpiresIt: two
// replicas sweep the same database; four workers, each holding a grant
// under a long run lease, stop heartbeating, the last after its credential
// was revoked. Across both replicas' logs each session's expiry is one
// worker.session_expired line, naming the worker, when it was last seen
// and the attempt it still held, and carrying no credential: a warning
// for each lost worker, info for the revoked one.
func TestAnExpiredWorkerSessionIsLoggedOnceByTheReplicaThatExpiresIt(t *testing.T) {
	t.Parallel()
	const workers = 4
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("lost", workers, clustertest.QuietCron()))
	env.MakeDue(t, 1000)
	var replicas []*inProcess
	for i := range 2 {
		replicas = append(replicas, serveInProcess(t, cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: env.URL(pgstore.RoleRuntime),
			ReplicaID: fmt.Sprintf("replica-%d", i), RolePrefix: env.Prefix, HTTPAddr: "127.0.0.1:0", WorkerAddr: "127.0.0.1:0",
			Cadence: 250 * time.Millisecond, StopTimeout: 2 * time.Second, RunLease: MinRunLease}))
	}
	for _, p := range replicas {
		p.awaitReady(t)
	}
	eventually(t, 30*time.Second, "every due Run admitted", func() bool { return env.Int(t, `SELECT count(*) FROM qinglong.runs`) == workers })
	rt := env.Runtime(t, "test-workers", pgstore.DefaultLease)
	lost := map[string]lostWorker{}
	for i := range workers {
		w := connectAndGrant(t, env, rt, fmt.Sprintf("lost-%d", i))
		lost[w.session] = w
	}
	admin, err := pgstore.OpenAdmin(t.Context(), env.URL(pgstore.RoleAdmin))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	const revoked = "lost-3"
	if _, err := admin.WorkerRevoke(t.Context(), revoked); err != nil {
		t.Fatal(err)
	}
	expireSessions(t, env)
	eventually(t, 30*time.Second, "every session expired", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.worker_sessions WHERE state = 'expired'`) == workers
	})
	lastSeen := map[string]int64{}
	for id := range lost {
		lastSeen[id] = env.Int(t, `SELECT heartbeat_at_ms FROM qinglong.worker_sessions WHERE id = $1`, id)
	}
	// Both replicas stop before the lines are counted: their logs are then
	// whole, each sweep any of them ran after the expiries included.
	var lines []map[string]any
	var raw strings.Builder
	for _, p := range replicas {
		p.stop()
		lines = append(lines, p.logs.withCode(CodeWorkerSessionExpired)...)
		raw.WriteString(p.logs.String())
	}
	if len(lines) != workers {
		t.Fatalf("%d worker.session_expired lines across both replicas, want %d (one per session):\n%s", len(lines), workers, raw.String())
	}
	seen := map[string]bool{}
	for _, rec := range lines {
		id, _ := rec["session"].(string)
		w, ok := lost[id]
		if !ok || seen[id] {
			t.Fatalf("line for session %q: unknown or said twice: %v", id, rec)
		}
		seen[id] = true
		wantSeen := time.UnixMilli(lastSeen[id]).UTC().Format(time.RFC3339Nano)
		level := "WARN"
		if w.name == revoked {
			level = "INFO"
		}
		if rec["level"] != level || rec["worker"] != w.name || rec["last_seen"] != wantSeen || rec["attempts_leased"] != float64(1) || rec["worker_revoked"] != (w.name == revoked) {
			t.Errorf("line %v: want %s naming worker %s, last seen %s, holding 1 attempt", rec, level, w.name, wantSeen)
		}
	}
	for _, w := range lost {
		if strings.Contains(raw.String(), w.cred) || strings.Contains(raw.String(), strings.TrimPrefix(w.cred, workerproto.CredentialPrefix)) {
			t.Fatalf("a replica's log carries worker %s's credential", w.name)
		}
	}
}
