package pgstore

import (
	"testing"
)

// TestAnUpgradedOutboxTakesSucceededAndFinishedNotificationsAndKeepsItsRows:
// a database whose outbox holds a failure's notification before pg-0024
// keeps it through the upgrade, and takes the rows of the succeeded and
// finished rules after it, which the outbox's event check refused before.
func TestAnUpgradedOutboxTakesSucceededAndFinishedNotificationsAndKeepsItsRows(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url, conn := databaseBefore(t, "pg-0024-")
	const project = "00000000-0000-7000-8000-00000000000a"
	row := func(id, event string) string {
		return `INSERT INTO qinglong.notification_outbox (id, project_id, rule_key, subject, event, channel, payload, state, next_attempt_at_ms,
			created_at_ms, updated_at_ms) VALUES ('` + id + `', '` + project + `', 'sha256:' || repeat('` + id[len(id)-1:] + `', 64), 'run:` + id + `', '` +
			event + `', '{}', '{}', 'pending', 0, 0, 0)`
	}
	for _, s := range []string{
		`INSERT INTO qinglong.projects (id, name, status, created_at_ms, updated_at_ms) VALUES ('` + project + `', 'shop', 'active', 0, 0)`,
		row("00000000-0000-7000-8000-000000000001", "failed"),
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("the pg-0023 fixture: %v\n%s", err, s)
		}
	}
	if _, err := conn.Exec(ctx, row("00000000-0000-7000-8000-000000000002", "succeeded")); err == nil {
		t.Fatal("the outbox before pg-0024 took a succeeded row; the upgrade would change nothing")
	}
	if _, err := Migrate(ctx, url, nil); err != nil {
		t.Fatalf("migrate through pg-0024: %v", err)
	}
	for _, s := range []string{row("00000000-0000-7000-8000-000000000003", "succeeded"), row("00000000-0000-7000-8000-000000000004", "finished")} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("the upgraded outbox refuses: %v\n%s", err, s)
		}
	}
	if _, err := conn.Exec(ctx, row("00000000-0000-7000-8000-000000000005", "cancelled")); err == nil {
		t.Fatal("the upgraded outbox took a row of an event no rule has")
	}
	var events string
	if err := conn.QueryRow(ctx, `SELECT string_agg(event, ',' ORDER BY id) FROM qinglong.notification_outbox`).Scan(&events); err != nil {
		t.Fatal(err)
	}
	if events != "failed,succeeded,finished" {
		t.Fatalf("the outbox holds %s after the upgrade, want the failed row kept and the two new ones", events)
	}
}
