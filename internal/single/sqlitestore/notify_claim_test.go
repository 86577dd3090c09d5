package sqlitestore

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/project"
)

// outboxBacklog is how many due rows the hung channel of the claim's plan
// test and benchmark has: a receiver down for a day at the default backoff
// and a busy schedule.
const outboxBacklog = 50_000

// seedOutboxBacklog writes a project whose channel "hung" has n due
// pending rows, all due before the 3 rows of its channel "healthy", and
// returns the two channels.
func (e *env) seedOutboxBacklog(tb testing.TB, n int) (hung, healthy notify.ChannelRef) {
	tb.Helper()
	p := project.Project{ID: ids.New(), Name: "backlog", Status: project.Active}
	if _, err := e.store.ProjectSave(tb.Context(), p); err != nil {
		tb.Fatal(err)
	}
	now := e.clock.NowMs()
	insert := `WITH RECURSIVE k (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?3)
		INSERT INTO notification_outbox (id, project_id, rule_key, subject, event, channel_json, payload_json, state,
		                                 attempts, next_attempt_at_ms, created_at_ms, updated_at_ms)
		SELECT printf('00000000-0000-7000-%04x-%012x', ?4, i), ?1, 'sha256:' || hex(zeroblob(32)), ?2 || '#' || i, 'failed',
		       json_object('name', ?2, 'kind', 'webhook', 'url', 'http://127.0.0.1:9/' || ?2), '{}', 'pending',
		       0, ?5 + i, ?5 + i, ?5 + i
		  FROM k`
	if _, err := e.raw.ExecContext(tb.Context(), insert, p.ID, "hung", n, 1, now-int64(n)-10); err != nil {
		tb.Fatal(err)
	}
	if _, err := e.raw.ExecContext(tb.Context(), insert, p.ID, "healthy", 3, 2, now-10); err != nil {
		tb.Fatal(err)
	}
	if _, err := e.raw.ExecContext(tb.Context(), `ANALYZE notification_outbox`); err != nil {
		tb.Fatal(err)
	}
	return notify.ChannelRef{ProjectID: p.ID, Channel: "hung"}, notify.ChannelRef{ProjectID: p.ID, Channel: "healthy"}
}

// outboxRead is a line of the claim's plan that reads the outbox (the
// query names it o and x); outboxSearch is one that searches it through
// the claim's index or the primary key.
var (
	outboxRead   = regexp.MustCompile(`^(SCAN|SEARCH) (o|x|notification_outbox)( |$)`)
	outboxSearch = regexp.MustCompile(`^SEARCH (o|x|notification_outbox) USING (COVERING )?INDEX (notification_outbox_channel_due|sqlite_autoindex_notification_outbox_1) \(`)
)

// TestTheNotificationClaimSearchesEachChannelsHeadNotItsBacklog: with 50,000
// due rows of one channel ahead of another's, the claim takes the other
// channel's rows, and every read of the outbox in its plan is a search of
// notification_outbox_channel_due (a walk from channel to channel, a
// channel's first due rows) or of the primary key, never a scan: a
// backlog costs the claim its channel's share, not its length.
func TestTheNotificationClaimSearchesEachChannelsHeadNotItsBacklog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	hung, healthy := e.seedOutboxBacklog(t, outboxBacklog)
	plan := strings.Join(e.queryPlan(t, qNotifyClaim, e.clock.NowMs(), 0, notify.MaxInFlight, `[]`, notify.PerChannelInFlight), "\n")
	for line := range strings.SplitSeq(plan, "\n") {
		if outboxRead.MatchString(line) && !outboxSearch.MatchString(line) {
			t.Errorf("the claim reads the outbox with %q, want only searches of notification_outbox_channel_due or the primary key:\n%s", line, plan)
		}
	}
	claimed, err := e.store.NotificationsClaim(t.Context(), notify.Claim{Limit: notify.MaxInFlight, Lease: time.Minute, PerChannel: notify.PerChannelInFlight})
	got := map[notify.ChannelRef]int{}
	for _, m := range claimed {
		got[notify.RefOf(m)]++
	}
	if err != nil || got[hung] != notify.PerChannelInFlight || got[healthy] != 3 {
		t.Fatalf("claimed %v (%v) behind %d due rows of %v, want its share of %v and the 3 rows of %v", got, err, outboxBacklog, hung, hung, healthy)
	}
}

// BenchmarkNotificationClaimBehindABacklog is one claim of a delivery
// round with 50,000 due rows on one channel: beside a healthy channel's 3
// due rows, and with that channel at its share (the claim can take only
// the backlog's rows). The lease is 0 so every iteration finds the same
// outbox.
//
//	go test ./internal/single/sqlitestore -run '^$' -bench NotificationClaim
func BenchmarkNotificationClaimBehindABacklog(b *testing.B) {
	e := newEnv(b)
	_, healthy := e.seedOutboxBacklog(b, outboxBacklog)
	for _, bc := range []struct {
		name     string
		inFlight map[notify.ChannelRef]int
	}{{"beside a healthy channel", nil}, {"backlog only", map[notify.ChannelRef]int{healthy: notify.PerChannelInFlight}}} {
		b.Run(bc.name, func(b *testing.B) {
			c := notify.Claim{Limit: notify.MaxInFlight, PerChannel: notify.PerChannelInFlight, InFlight: bc.inFlight}
			for b.Loop() {
				if _, err := e.store.NotificationsClaim(b.Context(), c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
