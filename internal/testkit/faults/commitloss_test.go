package faults

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/cluster/scheduler"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

const (
	// gateLease is the fresh replicas' lease in the commit-loss gates.
	gateLease = 5 * time.Second
	// heartbeatAdmissions is how many admissions of an every-second trigger
	// prove the fresh replicas were scheduling, not idle.
	heartbeatAdmissions = 3
	// heartbeatWithin bounds waiting for them.
	heartbeatWithin = 30 * time.Second
)

func TestLostAdmissionCommitReplyIsOutcomeUnknownAndNeverAdmittedTwiceAfterRestart(t *testing.T) {
	t.Parallel()
	srv := pgtest.Server(t)
	g := installGateDB(t, srv, pgtest.NewDatabase(t).Name, false, "")
	direct := g.superuser(t, srv)
	lost := loseAdmissionCommitReply(t, g, srv, direct)

	// Restart: fresh replicas, straight to the database.
	restartedAtMs := dbNowMs(t, direct)
	heartbeat := g.publish(t, srv, "heartbeat", "* * * * * *").Triggers[0].TriggerID
	fresh := freshReplicas(t, g, g.url(srv, pgstore.RoleRuntime))
	waitForHeartbeat(t, direct, heartbeat, restartedAtMs, fresh)
	assertAdmittedOnce(t, direct, lost)
	t.Logf("gate figures: restart variant, PostgreSQL %s; lost reply %s; fresh replicas admitted %d heartbeat Runs and nothing more for the occurrence",
		srv.Version(), lost, runsOfTrigger(t, direct, heartbeat, restartedAtMs))
}

func TestLostAdmissionCommitReplyIsOutcomeUnknownAndNeverAdmittedTwiceAfterPromotion(t *testing.T) {
	t.Parallel()
	pair := StartSyncPair(t, nil)
	g := installGateDB(t, pair.Primary, "qinglong", true, "")
	primary := g.superuser(t, pair.Primary)
	lost := loseAdmissionCommitReply(t, g, pair.Primary, primary)
	primary.Close(context.Background())

	// remote_apply: the COMMIT reply the proxy swallowed was sent only
	// after the standby had replayed the admission.
	standby := g.superuser(t, pair.Standby)
	if o := readOccurrence(t, standby, lost.TriggerID, lost.ScheduledForMs); o.Runs != 1 {
		t.Fatalf("the standby has %d Runs for the occurrence before promotion, want 1 (replayed)", o.Runs)
	}
	standby.Close(context.Background())

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
	restartedAtMs := dbNowMs(t, promoted)
	heartbeat := g.publish(t, pair.Standby, "heartbeat", "* * * * * *").Triggers[0].TriggerID
	fresh := freshReplicas(t, g, g.url(pair.Standby, pgstore.RoleRuntime))
	waitForHeartbeat(t, promoted, heartbeat, restartedAtMs, fresh)
	assertAdmittedOnce(t, promoted, lost)
	t.Logf("gate figures: promotion variant, PostgreSQL %s; lost reply %s; timeline %d → %d at %s; fresh replicas admitted %d heartbeat Runs and nothing more for the occurrence",
		pair.Standby.Version(), lost, pr.TimelineBefore, pr.TimelineAfter, fmtMs(pr.PromotedAtMs),
		runsOfTrigger(t, promoted, heartbeat, restartedAtMs))
}

// lostCommit is an admission whose COMMIT reply never reached its replica.
type lostCommit struct {
	TriggerID      string
	ScheduledForMs int64
	// ClaimVersion of the schedule row right after the admission cleared it.
	ClaimVersion int64
	Drop         Drop
}

func (l lostCommit) String() string {
	return fmt.Sprintf("occurrence %s, server answered %s (%s protocol) at %s, claim version %d cleared",
		fmtMs(l.ScheduledForMs), l.Drop.ServerReply, l.Drop.Protocol, l.Drop.At.UTC().Format(time.RFC3339Nano), l.ClaimVersion)
}

// loseAdmissionCommitReply runs a replica through a proxy to srv, lets it
// initialise a once-a-minute trigger, and loses the reply to the COMMIT of
// its admission. It asserts what the replica reported (outcome unknown:
// neither admitted nor failed, replica unavailable), that the proxy really
// forwarded the COMMIT and swallowed the server's COMMIT reply, and that
// the admission is durable.
func loseAdmissionCommitReply(t testing.TB, g gateDB, srv *pgtest.Srv, direct *pgx.Conn) lostCommit {
	t.Helper()
	proxy, err := StartProxy(fmt.Sprintf("127.0.0.1:%d", srv.Port()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := proxy.Close(); err != nil {
			t.Errorf("closing the proxy: %v", err)
		}
	})
	proxied, err := proxy.URL(g.url(srv, pgstore.RoleRuntime))
	if err != nil {
		t.Fatal(err)
	}
	triggerID := g.publish(t, srv, "gate", cronAtSecondAhead(t, direct, 6*time.Second)).Triggers[0].TriggerID
	r := openReplica(t, g, proxied, "replica-lossy", gateLease)
	if sum := r.round(t); sum.Counts[schedule.Initialized] != 1 {
		t.Fatalf("first round: %v, want 1 initialized", sum.Counts)
	}
	due := *readSchedule(t, direct, triggerID).NextFireAtMs
	waitFor(t, dueWithin, "the occurrence to fall due", func() bool { return dbNowMs(t, direct) >= due })

	// The only COMMIT of this round is the admission's: the claim is one
	// autocommit statement.
	dropped := proxy.ArmCommitLoss()
	sum := r.round(t)
	drop := awaitDrop(t, dropped)
	if drop.ServerReply != "COMMIT" {
		t.Fatalf("the server answered the dropped COMMIT with %q, want COMMIT", drop.ServerReply)
	}
	if sum.Taken != 1 || sum.Counts[schedule.Unavailable] != 1 || sum.Counts[schedule.Admitted] != 0 || sum.Counts[schedule.Failed] != 0 {
		t.Fatalf("round with the lost reply: taken %d, %v; want the one ticket unavailable, not admitted, not failed", sum.Taken, sum.Counts)
	}
	var te *schedule.TicketError
	if len(sum.Errors) != 1 || !errors.As(sum.Errors[0], &te) || te.Reason != schedule.ReasonOutcomeUnknown || !errors.Is(te, schedule.ErrUnavailable) {
		t.Fatalf("round errors %v, want one unavailable ticket with reason outcome_unknown", sum.Errors)
	}
	if len(sum.Admitted) != 0 {
		t.Fatalf("the round reports admitted Runs %v although it never saw the COMMIT reply", sum.Admitted)
	}
	if r.Latch.Available() || len(r.Log.withCode(scheduler.CodeUnavailable)) != 1 {
		t.Fatal("the replica did not turn unavailable after losing its connection mid-COMMIT")
	}
	r.close()

	o := readOccurrence(t, direct, triggerID, due)
	if o.Runs != 1 || o.Attempts != 1 || o.Events != 2 {
		t.Fatalf("after the lost reply the occurrence has %+v, want the admission durable: 1 Run, 1 Attempt, 2 events", o)
	}
	row := readSchedule(t, direct, triggerID)
	if row.ClaimOwner != nil || row.LastScheduledAtMs == nil || *row.LastScheduledAtMs != due || *row.NextFireAtMs <= due {
		t.Fatalf("schedule row after the lost reply: %+v; want the claim cleared and the cursor past %d", row, due)
	}
	return lostCommit{TriggerID: triggerID, ScheduledForMs: due, ClaimVersion: row.ClaimVersion, Drop: drop}
}

// freshReplicas opens and starts two replicas (startup recovery included),
// asserting that recovery examined the admitted Run and left it to the
// dispatcher: pristine scheduler output is not failed work.
func freshReplicas(t testing.TB, g gateDB, runtimeURL string) []*replica {
	t.Helper()
	var out []*replica
	for _, owner := range []string{"replica-a", "replica-b"} {
		r := openReplica(t, g, runtimeURL, owner, gateLease)
		if r.Recovery.Examined < 1 || r.Recovery.HeldCount != 0 {
			t.Fatalf("replica %s startup recovery examined %d and held %v; want the pristine admission examined and not held",
				owner, r.Recovery.Examined, r.Recovery.Held)
		}
		r.start(t)
		out = append(out, r)
	}
	return out
}

// waitForHeartbeat waits until the fresh replicas have admitted an
// every-second trigger a few times, then stops them.
func waitForHeartbeat(t testing.TB, c *pgx.Conn, heartbeat string, sinceMs int64, fresh []*replica) {
	t.Helper()
	waitFor(t, heartbeatWithin, "the fresh replicas to admit the heartbeat trigger", func() bool {
		return runsOfTrigger(t, c, heartbeat, sinceMs) >= heartbeatAdmissions
	})
	for _, r := range fresh {
		r.stop(t)
		if !r.Latch.Available() {
			t.Errorf("replica %s became unavailable", r.Owner)
		}
	}
}

// assertAdmittedOnce checks the lost-reply occurrence after fresh
// replicas ran: still exactly one admission, and its row untouched since.
func assertAdmittedOnce(t testing.TB, c *pgx.Conn, lost lostCommit) {
	t.Helper()
	o := readOccurrence(t, c, lost.TriggerID, lost.ScheduledForMs)
	if o.Runs != 1 || o.Attempts != 1 || o.Events != 2 {
		t.Fatalf("occurrence after the fresh replicas ran: %+v, want 1 Run, 1 Attempt, 2 events", o)
	}
	if n := runsOfTrigger(t, c, lost.TriggerID, 0); n != 1 {
		t.Fatalf("%d Runs of the trigger, want 1", n)
	}
	row := readSchedule(t, c, lost.TriggerID)
	if row.ClaimOwner != nil || row.ClaimVersion != lost.ClaimVersion {
		t.Fatalf("schedule row: owner %v, claim version %d; want still cleared at version %d", row.ClaimOwner, row.ClaimVersion, lost.ClaimVersion)
	}
	if n := duplicateOccurrences(t, c); n != 0 {
		t.Fatalf("%d duplicate occurrences", n)
	}
	if n, sample := malformedAdmissions(t, c); n != 0 {
		t.Fatalf("%d malformed admissions, e.g. %v", n, sample)
	}
}
