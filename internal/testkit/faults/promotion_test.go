package faults

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// Promotion gate timing: a 15 s claim, more than 10 s of it left when the
// old primary is fenced, so the takeover must wait for database expiry.
const (
	heldLease           = 15 * time.Second
	minRemainingAtFence = 10 * time.Second
	// dueWithin bounds waiting for a once-a-minute occurrence chosen a few
	// seconds ahead; a slow setup may miss it and wait a minute more.
	dueWithin = 90 * time.Second
	// takeoverWithin bounds the takeover after expiry: a few cadences.
	takeoverWithin = 30 * time.Second
)

func TestPromotionTakeoverWaitsForTheClaimsDatabaseExpiryAndAdmitsOnce(t *testing.T) {
	t.Parallel()
	pair := StartSyncPair(t, nil)
	g := installGateDB(t, pair.Primary, "qinglong", true, "")
	primary := g.superuser(t, pair.Primary)
	// Once a minute, a few seconds from now: nothing else of this trigger
	// falls due while the gate runs, so every count below is exact.
	defs := g.publish(t, pair.Primary, "gate", cronAtSecondAhead(t, primary, 6*time.Second))
	triggerID := defs.Triggers[0].TriggerID

	// The old replica initialises the schedule row, claims the occurrence
	// once it is due, and is gone before it can admit: its claim stays.
	old := openReplica(t, g, g.url(pair.Primary, pgstore.RoleRuntime), "replica-old", heldLease)
	if sum := old.round(t); sum.Counts[schedule.Initialized] != 1 {
		t.Fatalf("first round: %v, want 1 initialized", sum.Counts)
	}
	due := *readSchedule(t, primary, triggerID).NextFireAtMs
	waitFor(t, dueWithin, "the occurrence to fall due", func() bool { return dbNowMs(t, primary) >= due })
	held := takeOne(t, old)
	old.close()
	if *held.NextFireAtMs != due {
		t.Fatalf("claimed cursor %d, want the due occurrence %d", *held.NextFireAtMs, due)
	}
	lease := *held.Lease

	standby := g.superuser(t, pair.Standby)
	waitFor(t, replicationTimeout, "the claim to replay on the standby", func() bool {
		r := readSchedule(t, standby, triggerID)
		return r.ClaimOwner != nil && *r.ClaimOwner == lease.Owner && *r.ClaimToken == lease.Token && r.ClaimVersion == lease.ClaimVersion
	})
	standby.Close(context.Background())

	remainingMs := lease.ExpiresAtMs - dbNowMs(t, primary)
	if remainingMs <= minRemainingAtFence.Milliseconds() {
		t.Fatalf("only %d ms of the claim left before fencing, want > %v", remainingMs, minRemainingAtFence)
	}
	if o := readOccurrence(t, primary, triggerID, due); o.Runs != 0 {
		t.Fatalf("%d Runs for the occurrence before promotion, want 0", o.Runs)
	}
	primary.Close(context.Background())

	ctx, cancel := context.WithTimeout(t.Context(), 2*replicationTimeout)
	defer cancel()
	pr, err := pair.FenceAndPromote(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if pr.TimelineAfter <= pr.TimelineBefore {
		t.Fatalf("timeline %d → %d: the standby was not promoted", pr.TimelineBefore, pr.TimelineAfter)
	}

	promoted := g.superuser(t, pair.Standby)
	fresh := []*replica{
		openReplica(t, g, g.url(pair.Standby, pgstore.RoleRuntime), "replica-a", heldLease),
		openReplica(t, g, g.url(pair.Standby, pgstore.RoleRuntime), "replica-b", heldLease),
	}
	for _, r := range fresh {
		r.start(t)
	}
	waitFor(t, heldLease+takeoverWithin, "the takeover admission", func() bool {
		return takeoverWatch(t, promoted, triggerID, due, lease)
	})
	for _, r := range fresh {
		r.stop(t)
		if !r.Latch.Available() {
			t.Errorf("replica %s became unavailable", r.Owner)
		}
	}

	o := readOccurrence(t, promoted, triggerID, due)
	if o.Runs != 1 || o.Attempts != 1 || o.Events != 2 {
		t.Fatalf("occurrence after takeover: %+v, want 1 Run, 1 Attempt, 2 events", o)
	}
	if o.FirstAdmittedAtMs < lease.ExpiresAtMs {
		t.Fatalf("admitted at %s, before the claim's expiry %s", fmtMs(o.FirstAdmittedAtMs), fmtMs(lease.ExpiresAtMs))
	}
	row := readSchedule(t, promoted, triggerID)
	if row.ClaimOwner != nil || row.ClaimVersion != lease.ClaimVersion+1 {
		t.Fatalf("schedule row after takeover: owner %v, claim version %d; want cleared at version %d",
			row.ClaimOwner, row.ClaimVersion, lease.ClaimVersion+1)
	}
	if n := runsOfTrigger(t, promoted, triggerID, 0); n != 1 {
		t.Fatalf("%d Runs of the trigger, want 1", n)
	}
	if n := duplicateOccurrences(t, promoted); n != 0 {
		t.Fatalf("%d duplicate occurrences", n)
	}
	if n, sample := malformedAdmissions(t, promoted); n != 0 {
		t.Fatalf("%d malformed admissions, e.g. %v", n, sample)
	}
	t.Logf("gate figures: PostgreSQL %s; timeline %d → %d", pair.Standby.Version(), pr.TimelineBefore, pr.TimelineAfter)
	t.Logf("gate figures: claim taken %s by %s (version %d), %d ms left at fencing",
		fmtMs(lease.AcquiredAtMs), lease.Owner, lease.ClaimVersion, remainingMs)
	t.Logf("gate figures: promoted %s; claim expiry %s; admission %s (%d ms after expiry); claim version %d → %d, cleared",
		fmtMs(pr.PromotedAtMs), fmtMs(lease.ExpiresAtMs), fmtMs(o.FirstAdmittedAtMs), o.FirstAdmittedAtMs-lease.ExpiresAtMs,
		lease.ClaimVersion, row.ClaimVersion)
	t.Logf("gate figures: occurrence %s: %d Run, %d Attempt, %d events, 0 duplicates", fmtMs(due), o.Runs, o.Attempts, o.Events)
}

// takeoverWatch reports whether the occurrence has been admitted, failing
// the test if anything happened to the claim or the occurrence before the
// claim's expiry. The clock and the facts come from one statement, whose
// snapshot precedes its clock reading: a Run it sees with a reading before
// expiry was really committed before expiry.
func takeoverWatch(t testing.TB, c *pgx.Conn, triggerID string, due int64, lease schedule.Lease) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), factTimeout)
	defer cancel()
	var now int64
	var runs int
	var owner, token *string
	err := c.QueryRow(ctx, `SELECT `+pgstore.ClockMsSQL+`,
			(SELECT count(*) FROM qinglong.runs WHERE trigger_id = $1 AND scheduled_for_ms = $2),
			s.claim_owner, s.claim_token::text
		FROM qinglong.trigger_schedules s WHERE s.trigger_id = $1`, triggerID, due).Scan(&now, &runs, &owner, &token)
	if err != nil {
		t.Fatalf("watching the takeover: %v", err)
	}
	if now < lease.ExpiresAtMs {
		if runs != 0 {
			t.Fatalf("%d Runs admitted at %s, before the claim's expiry %s", runs, fmtMs(now), fmtMs(lease.ExpiresAtMs))
		}
		if owner == nil || *owner != lease.Owner || *token != lease.Token {
			t.Fatalf("claim changed hands at %s, before its expiry %s: owner %v", fmtMs(now), fmtMs(lease.ExpiresAtMs), owner)
		}
	}
	return runs > 0
}

// cronAtSecondAhead is a six-field expression firing once a minute, at the
// second of the database clock ahead from now.
func cronAtSecondAhead(t testing.TB, c *pgx.Conn, ahead time.Duration) string {
	t.Helper()
	second := (dbNowMs(t, c) + ahead.Milliseconds()) / 1000 % 60
	return fmt.Sprintf("%d * * * * *", second)
}

// takeOne claims the replica's single due row without deciding it.
func takeOne(t testing.TB, r *replica) schedule.Ticket {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), replicaStepTimeout)
	defer cancel()
	tickets, err := r.Store.ScheduleTake(ctx, schedule.TakeParams{Limit: schedule.MaxPageSize})
	if err != nil {
		t.Fatalf("replica %s: claim: %v", r.Owner, err)
	}
	if len(tickets) != 1 || tickets[0].Lease == nil {
		t.Fatalf("replica %s claimed %d rows, want 1", r.Owner, len(tickets))
	}
	return tickets[0]
}
