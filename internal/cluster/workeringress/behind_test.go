package workeringress

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// startedLease admits one Run, grants it to a fresh worker and starts it,
// then renews it once: the worker holds the lease at version 2.
func (f *fixture) startedLease(t *testing.T, project string) (cred string, lease workerproto.Lease) {
	t.Helper()
	cred = f.worker(t, project)
	f.admit(t, f.rt, project, 1, nil)
	pull := pullRequest(t, f.register(t, cred).SessionID, 0)
	var pulled workerproto.PullReply
	f.call(t, cred, workerproto.PathPull, pull, &pulled)
	if len(pulled.Grants) != 1 {
		t.Fatalf("pulled %d grants, want 1", len(pulled.Grants))
	}
	g := pulled.Grants[0]
	lease = workerproto.Lease{AttemptID: g.AttemptID, Token: pull.Token, LeaseVersion: g.LeaseVersion}
	var reply workerproto.LeaseReply
	f.call(t, cred, workerproto.PathStart, workerproto.StartRequest{Lease: lease}, &reply)
	f.call(t, cred, workerproto.PathRenew, workerproto.RenewRequest{Lease: lease}, &reply)
	lease.LeaseVersion = reply.LeaseVersion
	return cred, lease
}

// goBack puts attempt id's lease back to version 1, as a database restored
// from a dump taken before its renewal holds it.
func (f *fixture) goBack(t *testing.T, attemptID string) {
	t.Helper()
	f.env.Exec(t, `UPDATE qinglong.attempts SET lease_version = 1 WHERE id = $1`, attemptID)
}

// A worker holding a lease at a version the database never reached (a
// database gone back: a restore, a failover that lost commits) is told
// that the database went back, not that its lease is stale, and the
// replica says once, at warn, that the database is behind what workers
// were told.
func TestAWorkerAheadOfTheDatabaseIsToldTheDatabaseWentBackAndTheReplicaWarnsOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred, lease := f.startedLease(t, "ahead")
	f.goBack(t, lease.AttemptID)
	for range 2 {
		status, raw, _ := f.post(t, cred, workerproto.PathRenew, workerproto.RenewRequest{Lease: lease})
		e := errorOf(t, raw)
		if status != http.StatusConflict || e.Code != workerproto.CodeFenced || !strings.Contains(e.Message, "the database went back") || strings.Contains(e.Message, "stale") {
			t.Fatalf("renewal ahead of the database: %d %+v, want 409 fenced saying the database went back", status, e)
		}
	}
	if n := f.logs.count(CodeDatabaseBehind); n != 1 {
		t.Fatalf("%s logged %d times over two refusals, want once:\n%s", CodeDatabaseBehind, n, f.logs)
	}
}

// A worker naming an attempt newer than every attempt the database holds
// is told that the database went back; one naming an older unknown
// attempt is told only that it does not exist.
func TestAnAttemptNewerThanAnyTheDatabaseHoldsIsSaidToBeADatabaseGoneBack(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred, lease := f.startedLease(t, "newer")
	newer, err := uuid.NewV7()
	if err != nil {
		t.Fatal(err)
	}
	lease.AttemptID = newer.String()
	status, raw, _ := f.post(t, cred, workerproto.PathRenew, workerproto.RenewRequest{Lease: lease})
	if e := errorOf(t, raw); status != http.StatusNotFound || !strings.Contains(e.Message, "the database went back") {
		t.Fatalf("renewal of an attempt newer than any held: %d %+v, want 404 saying the database went back:\n%s", status, e, f.logs)
	}
	if n := f.logs.count(CodeDatabaseBehind); n != 1 {
		t.Fatalf("%s logged %d times, want once:\n%s", CodeDatabaseBehind, n, f.logs)
	}
	lease.AttemptID = "00000000-0000-7000-8000-000000000000"
	status, raw, _ = f.post(t, cred, workerproto.PathRenew, workerproto.RenewRequest{Lease: lease})
	if e := errorOf(t, raw); status != http.StatusNotFound || strings.Contains(e.Message, "went back") {
		t.Fatalf("renewal of an older unknown attempt: %d %+v, want 404 without a word of a database gone back", status, e)
	}
}

// A started attempt whose worker was found ahead of the database ends,
// when its lease runs out, lost with database_rolled_back — and so does
// its Run — never lease_expired, which would say its worker stopped
// renewing.
func TestARunWhoseWorkerWasAheadOfTheDatabaseEndsDatabaseRolledBack(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred, lease := f.startedLease(t, "rolled")
	f.goBack(t, lease.AttemptID)
	if status, raw, _ := f.post(t, cred, workerproto.PathRenew, workerproto.RenewRequest{Lease: lease}); status != http.StatusConflict {
		t.Fatalf("renewal ahead of the database: %d %s, want 409", status, raw)
	}
	f.env.Exec(t, `UPDATE qinglong.attempts SET lease_expires_at_ms = `+pgstore.ClockMsSQL+` - 1 WHERE id = $1`, lease.AttemptID)
	if _, err := f.rt.SweepLeases(t.Context(), 16); err != nil {
		t.Fatal(err)
	}
	var attemptState, attemptCode, runState, runCode string
	if err := f.env.Super.QueryRow(t.Context(), `SELECT a.state, a.error_code, r.state,
		(SELECT e.payload ->> 'errorCode' FROM qinglong.run_events e WHERE e.run_id = r.id ORDER BY e.seq DESC LIMIT 1)
		FROM qinglong.attempts a JOIN qinglong.runs r ON r.id = a.run_id WHERE a.id = $1`, lease.AttemptID).
		Scan(&attemptState, &attemptCode, &runState, &runCode); err != nil {
		t.Fatal(err)
	}
	if attemptState != "lost" || attemptCode != pgstore.ErrorCodeDatabaseRolledBack || runState != "lost" || runCode != pgstore.ErrorCodeDatabaseRolledBack {
		t.Fatalf("attempt %s/%s, Run %s/%s; want both lost with %s", attemptState, attemptCode, runState, runCode, pgstore.ErrorCodeDatabaseRolledBack)
	}
}
