package pgstore

import (
	"bytes"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// A worker renews its lease beside its log chunks and its completion, so
// a chunk or a completion can reach the database after a renewal of its
// own committed: the lease's holder (same worker, same token, running, its
// lease live in database time) is taken under the version before, the
// chunk stored once at its offset. A version ahead of the database's is
// still refused, and once the lease passed in database time neither the
// current version nor an older one appends anything or completes.
func TestALogChunkOrCompletionOfTheLeaseHolderThatCrossedItsRenewalIsTaken(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "holder", 2)
	w := s.newWorker(t, "w1", nil, 2)
	before, _ := s.started(t, w)
	renewed, err := s.runtime.RenewAttempt(t.Context(), w.WorkerIdentity, workerproto.RenewRequest{Lease: before}, testSettings)
	if err != nil || renewed.LeaseVersion != before.LeaseVersion+1 {
		t.Fatalf("renewal: %+v, %v; want version %d", renewed, err, before.LeaseVersion+1)
	}
	appendLog := func(l workerproto.Lease, offset int64, data string) (workerproto.LogReply, error) {
		return s.runtime.AppendAttemptLog(t.Context(), w.WorkerIdentity, workerproto.LogRequest{Lease: l, Offset: offset, Data: []byte(data)}, testSettings)
	}
	if r, err := appendLog(before, 0, "crossed "); err != nil || r.LogBytes != 8 {
		t.Fatalf("a chunk under the version before the renewal: %+v, %v; want it taken", r, err)
	}
	after := before
	after.LeaseVersion = renewed.LeaseVersion
	if r, err := appendLog(after, 0, "crossed "); err != nil || r.LogBytes != 8 {
		t.Fatalf("its replay under the renewed version: %+v, %v; want it taken once", r, err)
	}
	ahead := after
	ahead.LeaseVersion++
	if _, err := appendLog(ahead, 8, "x"); !qlerror.Is(err, qlerror.Conflict) {
		t.Fatalf("a chunk ahead of the database's version: %v; want it refused", err)
	}
	var out bytes.Buffer
	if _, _, err := s.runtime.ReadAttemptLog(t.Context(), before.AttemptID, 0, &out); err != nil || out.String() != "crossed " {
		t.Fatalf("log %q, %v; want the chunk once", out.String(), err)
	}
	done, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, workerproto.CompleteRequest{Lease: before, Outcome: workerproto.OutcomeExited, ExitCode: new(int64), LogBytes: 8})
	if err != nil || done.AttemptState != "succeeded" {
		t.Fatalf("a completion under the version before the renewal: %+v, %v; want it recorded", done, err)
	}

	// A lease that passed takes nothing, under any version of its holder.
	older, _ := s.started(t, w)
	again, err := s.runtime.RenewAttempt(t.Context(), w.WorkerIdentity, workerproto.RenewRequest{Lease: older}, testSettings)
	if err != nil || again.LeaseVersion != older.LeaseVersion+1 {
		t.Fatalf("renewal: %+v, %v", again, err)
	}
	lapsed := older
	lapsed.LeaseVersion = again.LeaseVersion
	s.lapse(t, lapsed.AttemptID)
	for _, l := range []workerproto.Lease{lapsed, older} {
		if _, err := appendLog(l, 0, "late"); !qlerror.Is(err, qlerror.Conflict) {
			t.Errorf("a chunk at version %d after the lease passed: %v; want it refused", l.LeaseVersion, err)
		}
		if _, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, exited(l, 0)); !qlerror.Is(err, qlerror.Conflict) {
			t.Errorf("a completion at version %d after the lease passed: %v; want it refused", l.LeaseVersion, err)
		}
	}
	if a := s.attempt(t, lapsed.AttemptID); a.State != "running" {
		t.Fatalf("a refused step changed the lapsed attempt: %+v", a)
	}
}
