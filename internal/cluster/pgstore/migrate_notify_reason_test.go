package pgstore

import (
	"testing"
)

// TestAnUpgradedOutboxKeepsOlderFailuresWithoutAReasonAndAReasonOnlyBesideItsText:
// a dead notification an older build recorded keeps its text through
// pg-0026 with no reason (the console shows the text alone); after it, a
// reason is taken only as a code and only beside a text.
func TestAnUpgradedOutboxKeepsOlderFailuresWithoutAReasonAndAReasonOnlyBesideItsText(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url, conn := databaseBefore(t, "pg-0026-")
	const project = "00000000-0000-7000-8000-00000000000a"
	for _, s := range []string{
		`INSERT INTO qinglong.projects (id, name, status, created_at_ms, updated_at_ms) VALUES ('` + project + `', 'shop', 'active', 0, 0)`,
		`INSERT INTO qinglong.notification_outbox (id, project_id, rule_key, subject, event, channel, payload, state, attempts, next_attempt_at_ms,
			last_error, created_at_ms, updated_at_ms) VALUES ('00000000-0000-7000-8000-000000000001', '` + project + `', 'sha256:' || repeat('1', 64),
			'run:1', 'failed', '{}', '{}', 'dead', 8, 0, 'channel ops: the receiver answered 503', 0, 0)`,
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("the pg-0025 fixture: %v\n%s", err, s)
		}
	}
	if _, err := Migrate(ctx, url, nil); err != nil {
		t.Fatalf("migrate through pg-0026: %v", err)
	}
	var text, reason string
	var null bool
	if err := conn.QueryRow(ctx, `SELECT last_error, coalesce(last_error_reason, ''), last_error_reason IS NULL FROM qinglong.notification_outbox`).
		Scan(&text, &reason, &null); err != nil {
		t.Fatal(err)
	}
	if text != "channel ops: the receiver answered 503" || !null {
		t.Fatalf("the older dead row reads %q with reason %q after the upgrade, want its text and no reason", text, reason)
	}
	if _, err := conn.Exec(ctx, `UPDATE qinglong.notification_outbox SET last_error_reason = 'receiver_status'`); err != nil {
		t.Fatalf("a reason beside its text was refused: %v", err)
	}
	for _, bad := range []struct{ reason, text any }{{"receiver_status", nil}, {"Receiver status!", "x"}, {"", "x"}} {
		if _, err := conn.Exec(ctx, `UPDATE qinglong.notification_outbox SET last_error_reason = $1, last_error = $2`, bad.reason, bad.text); err == nil {
			t.Errorf("the outbox took reason %v beside text %v", bad.reason, bad.text)
		}
	}
}
