package pgstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
)

// listingBufferBudget bounds the buffers one page of an outbox listing
// reads: a descent of an index and the page's rows, each heap page a few
// of them share.
const listingBufferBudget = 60

// TestAnOutboxListingPageReadsAFewPagesHoweverRareItsRows: in an outbox of
// 30,000 rows where one project's 300 rows (half of them dead) are the
// oldest and 300 pending ones the newest — rare rows far from the newest,
// the case a plan that reads newest first and filters does worst — every
// listing a person can ask for (of one state, of one project, of both,
// after a cursor or not) reads a page through the outbox's indexes as the
// runtime role plans it, never the outbox: a few dozen buffers.
func TestAnOutboxListingPageReadsAFewPagesHoweverRareItsRows(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	project := ids.New()
	for _, stmt := range []string{
		`SET session_replication_role = replica`,
		`INSERT INTO qinglong.notification_outbox (id, project_id, rule_key, subject, event, channel, payload, state,
		    next_attempt_at_ms, created_at_ms, updated_at_ms)
		 SELECT ('00000000-0000-7000-8000-' || lpad(to_hex(n), 12, '0'))::uuid,
		        CASE WHEN n <= 300 THEN '` + project + `'::uuid ELSE ('00000000-0000-7000-9000-' || lpad(to_hex(n % 10), 12, '0'))::uuid END,
		        'sha256:' || repeat('0', 64), 'run:' || n, 'failed', '{}', '{}',
		        CASE WHEN n <= 300 AND n % 2 = 0 THEN 'dead' WHEN n > 29700 THEN 'pending' ELSE 'delivered' END, n, n, n
		   FROM generate_series(1, 30000) n`,
		`RESET session_replication_role`,
		`ANALYZE qinglong.notification_outbox`,
	} {
		if _, err := s.super.Exec(ctx, stmt); err != nil {
			t.Fatalf("%v\n%s", err, stmt)
		}
	}
	// Ids are time-ordered as UUIDv7s are: this cursor is the 200th row's.
	after := "00000000-0000-7000-8000-" + fmt.Sprintf("%012x", 200)
	for _, q := range []notify.ListQuery{
		{}, {After: after},
		{State: notify.Dead}, {State: notify.Dead, After: after}, {State: notify.Pending}, {State: notify.Delivered, After: after},
		{ProjectID: project}, {ProjectID: project, After: after},
		{State: notify.Dead, ProjectID: project}, {State: notify.Delivered, ProjectID: project, After: after},
	} {
		q.Limit = notify.DefaultListed
		stmt, args := notifyListQuery(q)
		top, out := explainPlan(t, s.runtime.pool, "an outbox listing", "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+stmt, args...)
		if buffers := top.SharedHit + top.SharedRead; buffers > listingBufferBudget || strings.Contains(string(out), `"Seq Scan"`) {
			t.Errorf("listing %+v read %d buffers (budget %d):\n%s", q, buffers, listingBufferBudget, out)
		}
	}
}
