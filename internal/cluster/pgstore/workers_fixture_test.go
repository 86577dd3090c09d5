package pgstore

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// worker is one worker credential with an open session.
type worker struct {
	WorkerIdentity
	credential string
	session    string
}

// newWorker creates a credential through the admin role, authenticates
// it and opens a session through the runtime role, as the ingress does.
func (s *store) newWorker(t testing.TB, name string, labels map[string]string, capacity int) worker {
	t.Helper()
	cred, err := s.admin.WorkerCreate(t.Context(), name, labels, workerproto.MaxCapacity)
	if err != nil {
		t.Fatalf("create worker %s: %v", name, err)
	}
	id, err := s.runtime.AuthenticateWorker(t.Context(), cred)
	if err != nil {
		t.Fatalf("authenticate %s: %v", name, err)
	}
	w := worker{WorkerIdentity: id, credential: cred}
	w.session = s.register(t, w, capacity, nil).SessionID
	return w
}

func (s *store) register(t testing.TB, w worker, capacity int, labels map[string]string) workerproto.RegisterReply {
	t.Helper()
	reply, err := s.runtime.RegisterWorker(t.Context(), w.WorkerIdentity,
		workerproto.RegisterRequest{Labels: labels, Capacity: capacity, Version: "test"}, testSettings)
	if err != nil {
		t.Fatalf("register %s: %v", w.Name, err)
	}
	return reply.RegisterReply
}

// offer is a fresh pull request of w: a new offer id and token, as a
// worker journals them before asking.
func (w worker) offer(t testing.TB, maxGrants int) workerproto.PullRequest {
	t.Helper()
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return workerproto.PullRequest{SessionID: w.session, OfferID: ids.New(), Token: base64.RawURLEncoding.EncodeToString(b), Max: maxGrants}
}

// pull pulls with a fresh offer and returns the request (for replays and
// the lease token) and the grants.
func (s *store) pull(t testing.TB, w worker, maxGrants int) (workerproto.PullRequest, []workerproto.Grant) {
	t.Helper()
	req := w.offer(t, maxGrants)
	reply, err := s.runtime.PullGrants(t.Context(), w.WorkerIdentity, req, testSettings)
	if err != nil {
		t.Fatalf("pull: %v", err)
	}
	if reply.State != workerproto.SessionActive {
		t.Fatalf("pull: session %s", reply.State)
	}
	return req, reply.Grants
}

// lease names a grant of a pull.
func lease(req workerproto.PullRequest, g workerproto.Grant) workerproto.Lease {
	return workerproto.Lease{AttemptID: g.AttemptID, Token: req.Token, LeaseVersion: g.LeaseVersion}
}

// started pulls one grant for w and acknowledges its start.
func (s *store) started(t *testing.T, w worker) (workerproto.Lease, workerproto.Grant) {
	t.Helper()
	req, grants := s.pull(t, w, 1)
	if len(grants) != 1 {
		t.Fatalf("pull granted %d, want 1", len(grants))
	}
	l := lease(req, grants[0])
	reply, err := s.runtime.StartAttempt(t.Context(), w.WorkerIdentity, workerproto.StartRequest{Lease: l}, testSettings)
	if err != nil || reply.Reply != workerproto.ReplyRenewed {
		t.Fatalf("start: %+v, %v", reply, err)
	}
	return l, grants[0]
}

// setCommand merges fields into the stored command of every execution
// revision of a project, as the codec stores them (retry, placement,
// timeoutMs), so tests can give tasks policies without a publish.
func (s *store) setCommand(t *testing.T, projectID string, fields map[string]any) {
	t.Helper()
	b, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	s.exec(t, `UPDATE qinglong.execution_revisions SET command = command || $2::jsonb WHERE project_id = $1`, projectID, string(b))
}

// lapse ends the leases of the attempts ids now in database time, as if
// the database clock had moved on to the end of the last: every expiry is
// moved back by one amount, so they keep their order and their distance
// from each other and the last ends now, and it waits until the clock is
// past it. The tests whose point is a lease's end use it rather than wait
// a lease out: a lease short enough to wait out ran out on a loaded
// machine before the steps that had to come within it.
func (s *store) lapse(t *testing.T, ids ...string) {
	t.Helper()
	var last int64
	err := s.super.QueryRow(t.Context(), `WITH m AS (SELECT max(lease_expires_at_ms) - `+ClockMsSQL+` AS d FROM qinglong.attempts WHERE id = ANY ($1::uuid[])),
		u AS (UPDATE qinglong.attempts a SET lease_expires_at_ms = a.lease_expires_at_ms - greatest(m.d, 0) FROM m WHERE a.id = ANY ($1::uuid[])
		      RETURNING a.lease_expires_at_ms)
		SELECT max(lease_expires_at_ms) FROM u`, ids).Scan(&last)
	if err != nil {
		t.Fatalf("lapse the leases of %v: %v", ids, err)
	}
	s.waitPast(t, last)
}

// waitPast waits until the database clock is past atMs.
func (s *store) waitPast(t *testing.T, atMs int64) {
	t.Helper()
	for {
		now, err := s.runtime.NowMs(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if now > atMs {
			return
		}
		time.Sleep(time.Duration(min(atMs-now+1, 100)) * time.Millisecond)
	}
}

// attemptRow is an attempt as the superuser reads it.
type attemptRow struct {
	State         string
	Number        int
	LeaseVersion  *int64
	ExpiresAtMs   *int64
	DeadlineAtMs  *int64
	AvailableAtMs *int64
	WorkerID      *string
	LogBytes      int64
	LogTruncated  bool
}

func (s *store) attempt(t *testing.T, id string) attemptRow {
	t.Helper()
	var a attemptRow
	err := s.super.QueryRow(t.Context(), `SELECT state, number, lease_version, lease_expires_at_ms, deadline_at_ms, available_at_ms,
		worker_id::text, log_bytes, log_truncated FROM qinglong.attempts WHERE id = $1`, id).
		Scan(&a.State, &a.Number, &a.LeaseVersion, &a.ExpiresAtMs, &a.DeadlineAtMs, &a.AvailableAtMs, &a.WorkerID, &a.LogBytes, &a.LogTruncated)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// runState is a Run's state and version.
func (s *store) runState(t *testing.T, id string) (string, int64) {
	t.Helper()
	var state string
	var version int64
	if err := s.super.QueryRow(t.Context(), `SELECT state, version FROM qinglong.runs WHERE id = $1`, id).Scan(&state, &version); err != nil {
		t.Fatal(err)
	}
	return state, version
}

// checkRunHistories asserts the Run invariant every step keeps: the
// version and the last event sequence moved together from admission
// (version 2, event 2), and the events are exactly 1..last, gap-free.
func (s *store) checkRunHistories(t *testing.T) {
	t.Helper()
	rows, err := s.super.Query(t.Context(), `SELECT r.id, r.version, r.last_event_seq, count(e.seq), coalesce(max(e.seq), 0)
		FROM qinglong.runs r LEFT JOIN qinglong.run_events e ON e.run_id = r.id GROUP BY r.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var version, last, count, maxSeq int64
		if err := rows.Scan(&id, &version, &last, &count, &maxSeq); err != nil {
			t.Fatal(err)
		}
		if version != last || count != last || maxSeq != last {
			t.Errorf("run %s: version %d, last event %d, %d events up to %d: every change must bump the version with one event", id, version, last, count, maxSeq)
		}
	}
}

// runOf maps a grant to its Run's id (a convenience for readability).
func runIDs(grants []workerproto.Grant) map[string]bool {
	out := map[string]bool{}
	for _, g := range grants {
		out[g.RunID] = true
	}
	return out
}
