package pgstore

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
)

// outboxBacklog is how many due rows the hung channel of the claim's plan
// test and benchmark has: a receiver down for a day at the default backoff
// and a busy schedule.
const outboxBacklog = 50_000

// seedOutboxBacklog writes a project whose channel "hung" has n due
// pending rows, all due before the 3 rows of its channel "healthy", and
// returns the two channels.
func (s *store) seedOutboxBacklog(tb testing.TB, n int) (hung, healthy notify.ChannelRef) {
	tb.Helper()
	project := ids.New()
	s.exec(tb, `INSERT INTO qinglong.projects (id, name, status, created_at_ms, updated_at_ms) VALUES ($1, 'backlog', 'active', 0, 0)`, project)
	insert := `INSERT INTO qinglong.notification_outbox (id, project_id, rule_key, subject, event, channel, payload, state,
		                                          attempts, next_attempt_at_ms, created_at_ms, updated_at_ms)
		SELECT gen_random_uuid(), $1::uuid, 'sha256:' || repeat('0', 64), $2::text || '#' || i, 'failed',
		       jsonb_build_object('name', $2::text, 'kind', 'webhook', 'url', 'http://127.0.0.1:9/' || $2::text), '{}', 'pending',
		       0, now.ms - $4::bigint + i, now.ms - $4::bigint + i, now.ms - $4::bigint + i
		  FROM generate_series(1, $3::int) AS i, (SELECT ` + ClockMsSQL + ` AS ms) AS now`
	s.exec(tb, insert, project, "hung", n, int64(n)+60_000)
	s.exec(tb, insert, project, "healthy", 3, int64(60_000))
	s.exec(tb, `ANALYZE qinglong.notification_outbox`)
	return notify.ChannelRef{ProjectID: project, Channel: "hung"}, notify.ChannelRef{ProjectID: project, Channel: "healthy"}
}

// outboxReadBudget bounds the outbox rows one claim of a delivery round
// reads (returned by its scans) when it takes claimed rows: per channel
// one step of the walk and its share of due rows, per claimed row its
// re-read under the lock and its update, and the walk's last, empty step.
func outboxReadBudget(channels, claimed int) int {
	return channels*(1+notify.PerChannelInFlight) + 2*claimed + 1
}

// outboxBufferBudget bounds the buffers of that claim: the update writes
// each claimed row's entry into every index of the outbox, a few pages
// each, and every search descends an index once.
func outboxBufferBudget(claimed int) int { return 40*claimed + 100 }

// TestTheNotificationClaimReadsEachChannelsHeadNotItsBacklog: with 50,000
// due rows of one channel ahead of another's, the claim of a delivery
// round takes the other channel's rows, and under the generic and the
// custom plan alike it reads the outbox only through
// notification_outbox_channel_due_idx and a search of the candidates by
// id, a handful of rows per channel: a backlog costs the claim its
// channel's share, not its length.
func TestTheNotificationClaimReadsEachChannelsHeadNotItsBacklog(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	hung, healthy := s.seedOutboxBacklog(t, outboxBacklog)
	for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
		reads, buffers, plan := s.explainNotifyClaim(t, mode)
		claimed := 2 * notify.PerChannelInFlight
		t.Logf("%s: %d outbox rows, %d buffers", mode, reads, buffers)
		if reads > outboxReadBudget(2, claimed) || buffers > outboxBufferBudget(claimed) {
			t.Errorf("%s: the claim read %d outbox rows (budget %d) and %d buffers (budget %d) behind %d due rows of one channel:\n%s",
				mode, reads, outboxReadBudget(2, claimed), buffers, outboxBufferBudget(claimed), outboxBacklog, plan)
		}
	}
	claimed, err := s.runtime.NotificationsClaim(t.Context(), notify.Claim{Limit: notify.MaxInFlight, Lease: time.Minute, PerChannel: notify.PerChannelInFlight})
	got := map[notify.ChannelRef]int{}
	for _, m := range claimed {
		got[notify.RefOf(m)]++
	}
	if err != nil || got[hung] != notify.PerChannelInFlight || got[healthy] != 3 {
		t.Fatalf("claimed %v (%v) behind %d due rows of %v, want its share of %v and the 3 rows of %v", got, err, outboxBacklog, hung, hung, healthy)
	}
}

// explainNotifyClaim runs a delivery round's claim (nothing under way)
// under EXPLAIN (ANALYZE, BUFFERS) as the runtime role, prepared under
// plan_cache_mode mode, in a transaction it rolls back. It returns the
// outbox rows the plan's scans returned, the statement's buffers and the
// plan; a sequential scan of the outbox, or a search of any other of its
// indexes than notification_outbox_channel_due_idx and those that find the
// candidates by id (the primary key, and the listing's (state, id), which
// the planner may prefer for "pending and one of these ids"), fails the
// test. Either search by id reads the candidates alone: one that read the
// pending rows instead would go far past the buffer budget.
func (s *store) explainNotifyClaim(t *testing.T, mode string) (int, int, string) {
	t.Helper()
	ctx := context.Background()
	tx, rollback := s.runtimeTx(t)
	defer rollback()
	for _, stmt := range []string{"SET LOCAL plan_cache_mode = " + mode, "PREPARE notify_claim AS " + sqlNotifyClaim} {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			t.Fatalf("explain the notification claim: %v", err)
		}
	}
	top, out := explainPlan(t, tx, "the notification claim", fmt.Sprintf(
		"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE notify_claim(0, %d, '{}'::uuid[], '{}'::text[], '{}'::int[], %d)",
		notify.MaxInFlight, notify.PerChannelInFlight))
	reads := 0
	top.walk(func(n planNode) {
		if strings.HasPrefix(n.IndexName, "notification_outbox") && !claimIndexes[n.IndexName] ||
			n.Relation == "notification_outbox" && n.NodeType == "Seq Scan" {
			t.Errorf("%s: the claim reads the outbox by a %s %s:\n%s", mode, n.NodeType, n.IndexName, out)
		}
		if n.Relation == "notification_outbox" && n.NodeType != "ModifyTable" {
			reads += int(n.ActualRows*n.ActualLoops) + int(n.RemovedByFilter)
		}
	})
	return reads, top.SharedHit + top.SharedRead, string(out)
}

// claimIndexes are the outbox's indexes a claim may search.
var claimIndexes = map[string]bool{
	"notification_outbox_channel_due_idx": true, "notification_outbox_pkey": true, "notification_outbox_state_listing_idx": true,
}

// BenchmarkNotificationClaimBehindABacklog is one claim of a delivery
// round with 50,000 due rows on one channel: beside a healthy channel's 3
// due rows, and with that channel at its share (the claim can take only
// the backlog's rows). The lease is 0 so every iteration finds the same
// outbox.
//
//	go test ./internal/cluster/pgstore -run '^$' -bench NotificationClaim
func BenchmarkNotificationClaimBehindABacklog(b *testing.B) {
	s := newStore(b)
	_, healthy := s.seedOutboxBacklog(b, outboxBacklog)
	for _, bc := range []struct {
		name     string
		inFlight map[notify.ChannelRef]int
	}{{"beside a healthy channel", nil}, {"backlog only", map[notify.ChannelRef]int{healthy: notify.PerChannelInFlight}}} {
		b.Run(bc.name, func(b *testing.B) {
			c := notify.Claim{Limit: notify.MaxInFlight, PerChannel: notify.PerChannelInFlight, InFlight: bc.inFlight}
			for b.Loop() {
				if _, err := s.runtime.NotificationsClaim(b.Context(), c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
