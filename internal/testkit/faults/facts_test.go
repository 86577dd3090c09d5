package faults

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
)

// The gates judge by durable facts read as the superuser, never by what a
// replica says about itself.

// factTimeout bounds one fact query.
const factTimeout = 30 * time.Second

// scheduleRow is a trigger's schedule row.
type scheduleRow struct {
	NextFireAtMs      *int64
	LastScheduledAtMs *int64
	StateVersion      int64
	ClaimOwner        *string
	ClaimToken        *string
	ClaimVersion      int64
	ClaimExpiresAtMs  *int64
}

func readSchedule(t testing.TB, c *pgx.Conn, triggerID string) scheduleRow {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), factTimeout)
	defer cancel()
	var r scheduleRow
	err := c.QueryRow(ctx, `SELECT next_fire_at_ms, last_scheduled_at_ms, state_version,
			claim_owner, claim_token::text, claim_version, claim_expires_at_ms
		FROM qinglong.trigger_schedules WHERE trigger_id = $1`, triggerID).
		Scan(&r.NextFireAtMs, &r.LastScheduledAtMs, &r.StateVersion, &r.ClaimOwner, &r.ClaimToken, &r.ClaimVersion, &r.ClaimExpiresAtMs)
	if err != nil {
		t.Fatalf("schedule row of %s: %v", triggerID, err)
	}
	return r
}

func dbNowMs(t testing.TB, c *pgx.Conn) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), factTimeout)
	defer cancel()
	var now int64
	if err := c.QueryRow(ctx, "SELECT "+pgstore.ClockMsSQL).Scan(&now); err != nil {
		t.Fatalf("database clock: %v", err)
	}
	return now
}

// occurrence counts what exists for one (trigger, scheduled time): Events
// are those admission and execution wrote, not the run.waiting a sweep
// adds while no worker is connected.
type occurrence struct {
	Runs, Attempts, Events int
	// FirstAdmittedAtMs is the earliest Run's created_at_ms (the admission
	// transaction's database time); 0 without Runs.
	FirstAdmittedAtMs int64
}

func readOccurrence(t testing.TB, c *pgx.Conn, triggerID string, scheduledForMs int64) occurrence {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), factTimeout)
	defer cancel()
	var o occurrence
	err := c.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM qinglong.runs r WHERE r.trigger_id = $1 AND r.scheduled_for_ms = $2),
			(SELECT count(*) FROM qinglong.attempts a JOIN qinglong.runs r ON r.id = a.run_id
			  WHERE r.trigger_id = $1 AND r.scheduled_for_ms = $2),
			(SELECT count(*) FROM qinglong.run_events e JOIN qinglong.runs r ON r.id = e.run_id
			  WHERE r.trigger_id = $1 AND r.scheduled_for_ms = $2 AND e.name <> 'run.waiting'),
			(SELECT coalesce(min(r.created_at_ms), 0) FROM qinglong.runs r WHERE r.trigger_id = $1 AND r.scheduled_for_ms = $2)`,
		triggerID, scheduledForMs).Scan(&o.Runs, &o.Attempts, &o.Events, &o.FirstAdmittedAtMs)
	if err != nil {
		t.Fatalf("occurrence %s@%d: %v", triggerID, scheduledForMs, err)
	}
	return o
}

func runsOfTrigger(t testing.TB, c *pgx.Conn, triggerID string, admittedFromMs int64) int {
	t.Helper()
	return count(t, c, "SELECT count(*) FROM qinglong.runs WHERE trigger_id = $1 AND created_at_ms >= $2", triggerID, admittedFromMs)
}

// duplicateOccurrences counts (trigger, scheduled time) pairs with more
// than one Run by grouping, so a missing or dropped unique index could not
// hide one.
func duplicateOccurrences(t testing.TB, c *pgx.Conn) int {
	t.Helper()
	return count(t, c, `SELECT count(*) FROM (
		SELECT 1 FROM qinglong.runs GROUP BY trigger_id, scheduled_for_ms HAVING count(*) > 1) d`)
}

// malformedAdmissions returns (up to 10) Runs that are not exactly what an
// admission writes: queued, one claimed remote_worker Attempt numbered 1,
// and events 1 run.created and 2 run.queued, then at most the run.waiting
// a sweep adds while no worker is connected; n is how many there are.
func malformedAdmissions(t testing.TB, c *pgx.Conn) (n int, sample []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), factTimeout)
	defer cancel()
	rows, err := c.Query(ctx, `WITH shape AS (
		SELECT r.id, r.state,
			(SELECT count(*) FROM qinglong.attempts a WHERE a.run_id = r.id) AS attempts,
			(SELECT count(*) FROM qinglong.attempts a WHERE a.run_id = r.id
			   AND a.number = 1 AND a.executor = 'remote_worker' AND a.state = 'claimed') AS admitted_attempts,
			(SELECT coalesce(string_agg(e.seq || ':' || e.name, ',' ORDER BY e.seq), '')
			   FROM qinglong.run_events e WHERE e.run_id = r.id) AS events
		FROM qinglong.runs r)
		SELECT id::text || ' state=' || state || ' attempts=' || attempts || ' events=' || events,
		       count(*) OVER ()
		  FROM shape
		 WHERE NOT (state = 'queued' AND attempts = 1 AND admitted_attempts = 1
		            AND events IN ('1:run.created,2:run.queued', '1:run.created,2:run.queued,3:run.waiting'))
		 LIMIT 10`)
	if err != nil {
		t.Fatalf("admission shape: %v", err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s, &n); err != nil {
			t.Fatalf("admission shape: %v", err)
		}
		sample = append(sample, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("admission shape: %v", err)
	}
	return n, sample
}

// fmtMs renders a database time for the gate reports.
func fmtMs(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}
