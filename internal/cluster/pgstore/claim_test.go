package pgstore

import (
	"errors"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

func TestClaimIsTakenOverOnlyAfterDatabaseTimeExpiry(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	a := s.openRuntime(t, "replica-a", time.Second)
	b := s.openRuntime(t, "replica-b", time.Second)
	d := s.publish(t, "alpha")
	first := s.takeAll(t, a)
	if len(first) != 1 || first[0].Lease.Owner != "replica-a" {
		t.Fatalf("replica a took %+v", first)
	}
	if got := s.takeAll(t, b); len(got) != 0 {
		t.Fatalf("replica b took a live claim: %+v", got[0].Lease)
	}
	s.sleepUntilDBTime(t, first[0].Lease.ExpiresAtMs)
	second := s.takeAll(t, b)
	if len(second) != 1 || second[0].TriggerID != d.trigger.TriggerID {
		t.Fatalf("replica b took %d rows after expiry, want the expired claim", len(second))
	}
	l1, l2 := first[0].Lease, second[0].Lease
	if l2.Owner != "replica-b" || l2.ClaimVersion != l1.ClaimVersion+1 || l2.Token == l1.Token || l2.AcquiredAtMs < l1.ExpiresAtMs {
		t.Fatalf("takeover lease %+v after %+v; want owner b, version +1, new token, acquired at or after expiry", l2, l1)
	}
	if res, _ := a.ScheduleCommit(t.Context(), params(t, first[0])); res.Outcome != schedule.Raced {
		t.Fatalf("old owner's commit after takeover: %s (%s), want raced", res.Outcome, res.Reason)
	}
	if res, err := b.ScheduleCommit(t.Context(), params(t, second[0])); res.Outcome != schedule.Initialized {
		t.Fatalf("new owner's commit: %s (%s) %v", res.Outcome, res.Reason, err)
	}
}

func TestClaimWritesTheFullLeaseFromOneDatabaseInstant(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	d := s.publish(t, "alpha")
	before, err := s.row(t.Context(), d.trigger.TriggerID)
	if err != nil {
		t.Fatal(err)
	}
	tk := s.takeAll(t, s.runtime)[0]
	l := tk.Lease
	if l.Owner != "replica-a" || l.ClaimVersion != before.ClaimVersion+1 || tk.StateVersion != before.StateVersion+1 ||
		l.ExpiresAtMs != l.AcquiredAtMs+testLease.Milliseconds() || tk.ObservedAtMs != l.AcquiredAtMs {
		t.Fatalf("ticket %+v lease %+v from row %+v", tk.Snapshot, l, before)
	}
	var updated int64
	var token string
	if err := s.super.QueryRow(t.Context(), `SELECT updated_at_ms, claim_token::text FROM qinglong.trigger_schedules WHERE trigger_id = $1`,
		d.trigger.TriggerID).Scan(&updated, &token); err != nil {
		t.Fatal(err)
	}
	if updated != l.AcquiredAtMs || token != l.Token {
		t.Fatalf("row holds acquired %d token %s; ticket says %d %s", updated, token, l.AcquiredAtMs, l.Token)
	}
}

func TestTakeReportsUnavailableWhenTheConnectionIsLost(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.publish(t, "alpha")
	tx, err := s.super.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(t.Context())
	if _, err := tx.Exec(t.Context(), "LOCK TABLE qinglong.trigger_schedules IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.runtime.ScheduleTake(t.Context(), schedule.TakeParams{Limit: 16})
		done <- err
	}()
	s.terminate(t, s.blockedBackend(t, s.roles.Runtime))
	err = <-done
	if !errors.Is(err, schedule.ErrUnavailable) {
		t.Fatalf("take on a terminated connection: %v, want an error wrapping schedule.ErrUnavailable", err)
	}
}
