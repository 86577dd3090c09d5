package sqlitestore

import (
	"regexp"
	"strings"
	"testing"
)

// outboxPromoteSearch is how the promotion of a channel's waiting rows may
// read the outbox: the delivered row by its primary key, and the channel's
// rows whose next attempt lies ahead as a range of
// notification_outbox_channel_due.
var outboxPromoteSearch = regexp.MustCompile(`^SEARCH (d USING INDEX sqlite_autoindex_notification_outbox_1 \(id=\?\)|notification_outbox USING INDEX notification_outbox_channel_due \(project_id=\? AND <expr>=\? AND next_attempt_at_ms>\?\))$`)

// TestADeliveryBringsItsChannelsWaitingRowsForwardWithoutReadingItsBacklog:
// with 50,000 due rows of the channel, the statement that makes its rows
// waiting in backoff due at once reads only the rows whose next attempt
// lies ahead, through notification_outbox_channel_due, and the delivered
// row by its key: a delivery costs the rows it changes, not the backlog.
func TestADeliveryBringsItsChannelsWaitingRowsForwardWithoutReadingItsBacklog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedOutboxBacklog(t, outboxBacklog)
	var delivered string
	if err := e.raw.QueryRow(`SELECT id FROM notification_outbox WHERE json_extract(channel_json, '$.name') = 'hung' LIMIT 1`).Scan(&delivered); err != nil {
		t.Fatal(err)
	}
	plan := e.queryPlan(t, qNotifyPromote, e.clock.NowMs(), delivered)
	for _, line := range plan {
		if (outboxRead.MatchString(line) || strings.HasPrefix(line, "SEARCH d ") || strings.HasPrefix(line, "SCAN d")) && !outboxPromoteSearch.MatchString(line) {
			t.Errorf("the promotion reads the outbox with %q, want only the delivered row by key and a range of notification_outbox_channel_due:\n%s",
				line, strings.Join(plan, "\n"))
		}
	}
	if len(plan) == 0 {
		t.Fatal("no plan")
	}
	t.Logf("plan:\n%s", strings.Join(plan, "\n"))
}
