package scheduler

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/availability"
	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// TestAReplicaMovesBackAtItsFirstRoundTheTriggersADatabaseClockSetBackLeftWaiting:
// rows written while the database clock read ten years later (their
// cursors, one of them claimed by a replica that died then) fire again
// from the first round of a replica started after the clock went back:
// every trigger is admitted at its next seconds, once each, and one
// warning names the check.
func TestAReplicaMovesBackAtItsFirstRoundTheTriggersADatabaseClockSetBackLeftWaiting(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("clock", 3, "* * * * * *"))
	const years = `(10::bigint * 365 * 24 * 3600 * 1000)`
	env.Exec(t, `UPDATE qinglong.trigger_schedules
		SET next_fire_at_ms = `+pgstore.ClockMsSQL+` / 1000 * 1000 + `+years+`, due_offset_ms = 0,
		    updated_at_ms = `+pgstore.ClockMsSQL+` + `+years+`, state_version = state_version + 1`)
	env.Exec(t, `UPDATE qinglong.trigger_schedules
		SET claim_owner = 'replica-that-died', claim_token = gen_random_uuid(), claim_version = claim_version + 1,
		    claim_expires_at_ms = updated_at_ms + 30000
		WHERE trigger_id = (SELECT trigger_id FROM qinglong.trigger_schedules ORDER BY trigger_id LIMIT 1)`)
	started := env.Int(t, `SELECT `+pgstore.ClockMsSQL)

	var logs syncbuf.Buffer
	c, err := New(Config{Owner: "after-the-clock-went-back", Cadence: time.Second}, env.Runtime(t, "after-the-clock-went-back", pgstore.DefaultLease),
		slog.New(slog.NewTextHandler(&logs, nil)), availability.New())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for env.Int(t, `SELECT count(DISTINCT trigger_id) FROM qinglong.runs WHERE scheduled_for_ms > $1`, started) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("not every trigger fired within 20 s of the replica's start; its log:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if o := env.Count(t); o.Duplicates != 0 || o.Malformed != 0 {
		t.Fatalf("occurrences: %+v", o)
	}
	if n := env.Int(t, `SELECT count(*) FROM qinglong.trigger_schedules WHERE claim_owner = 'replica-that-died'`); n != 0 {
		t.Fatalf("%d rows still claimed by the replica that died while the clock read later", n)
	}
	if got := logs.String(); strings.Count(got, "code="+schedule.CodeClockWentBack) != 1 || !strings.Contains(got, "triggers=3") {
		t.Fatalf("want one %s warning counting 3 triggers; the log:\n%s", schedule.CodeClockWentBack, got)
	}
}
