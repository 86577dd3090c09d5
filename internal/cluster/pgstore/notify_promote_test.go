package pgstore

import (
	"context"
	"fmt"
	"testing"
)

// promoteIndexes are the outbox's indexes the delivery that brings its
// channel's waiting rows forward may search: the delivered row by key,
// and the channel's rows whose next attempt lies ahead.
var promoteIndexes = map[string]bool{"notification_outbox_pkey": true, "notification_outbox_channel_due_idx": true}

// TestADeliveryBringsItsChannelsWaitingRowsForwardWithoutReadingItsBacklog:
// with 50,000 due rows of the channel and 5 waiting out a backoff, the
// delivery of one of its rows, which makes the waiting ones due at once,
// reads the outbox only by its key and through
// notification_outbox_channel_due_idx, under the generic and the custom
// plan alike: the delivered row and the rows ahead, a handful, never the
// backlog.
func TestADeliveryBringsItsChannelsWaitingRowsForwardWithoutReadingItsBacklog(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.seedOutboxBacklog(t, outboxBacklog)
	const waiting = 5
	s.exec(t, fmt.Sprintf(`UPDATE qinglong.notification_outbox SET backing_off = true, next_attempt_at_ms = next_attempt_at_ms + 3600000
		WHERE id IN (SELECT id FROM qinglong.notification_outbox WHERE channel->>'name' = 'hung' ORDER BY id LIMIT %d)`, waiting))
	s.exec(t, `ANALYZE qinglong.notification_outbox`)
	var delivered string
	if err := s.runtime.pool.QueryRow(t.Context(), `SELECT id::text FROM qinglong.notification_outbox WHERE channel->>'name' = 'hung' AND NOT backing_off LIMIT 1`).Scan(&delivered); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
		ctx := context.Background()
		tx, rollback := s.runtimeTx(t)
		for _, stmt := range []string{"SET LOCAL plan_cache_mode = " + mode, "PREPARE notify_delivered AS " + sqlNotifyDelivered} {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				t.Fatalf("explain the delivery: %v", err)
			}
		}
		top, out := explainPlan(t, tx, "the delivery", fmt.Sprintf("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE notify_delivered('%s')", delivered))
		var promoted int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM qinglong.notification_outbox WHERE channel->>'name' = 'hung' AND backing_off`).Scan(&promoted); err != nil {
			t.Fatal(err)
		}
		rollback()
		reads := 0
		top.walk(func(n planNode) {
			if n.IndexName != "" && n.Relation == "notification_outbox" && !promoteIndexes[n.IndexName] || n.Relation == "notification_outbox" && n.NodeType == "Seq Scan" {
				t.Errorf("%s: the delivery reads the outbox by a %s %s:\n%s", mode, n.NodeType, n.IndexName, out)
			}
			if n.Relation == "notification_outbox" && n.NodeType != "ModifyTable" {
				reads += int(n.ActualRows*n.ActualLoops) + int(n.RemovedByFilter)
			}
		})
		t.Logf("%s: %d outbox rows, %d buffers", mode, reads, top.SharedHit+top.SharedRead)
		if buffers := top.SharedHit + top.SharedRead; promoted != 0 || reads > 2+waiting || buffers > outboxBufferBudget(1+waiting) {
			t.Errorf("%s: %d rows left waiting, %d outbox rows read, %d buffers (budget %d); want the %d waiting due at once, reading the delivered row and those %d alone:\n%s",
				mode, promoted, reads, buffers, outboxBufferBudget(1+waiting), waiting, waiting, out)
		}
	}
}
