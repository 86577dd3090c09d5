package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

func TestAdmissionWritesTheQueuedRunShape(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	d, p := s.dueTicket(t, s.runtime)
	res, err := s.runtime.ScheduleCommit(t.Context(), p)
	if err != nil || res.Outcome != schedule.Admitted {
		t.Fatalf("commit: %+v, %v", res, err)
	}
	var state, key, execID string
	var version, lastSeq, scheduled int64
	err = s.super.QueryRow(t.Context(), `SELECT state, version, last_event_seq, idempotency_key, scheduled_for_ms, execution_revision_id
		FROM qinglong.runs WHERE id = $1`, p.RunID).Scan(&state, &version, &lastSeq, &key, &scheduled, &execID)
	if err != nil {
		t.Fatal(err)
	}
	wantKey := "ql3:cron:v1:" + d.trigger.TriggerID + ":1:" + jsonInt(p.Decision.ScheduledForMs)
	if state != "queued" || version != 2 || lastSeq != 2 || key != wantKey || scheduled != p.Decision.ScheduledForMs {
		t.Fatalf("run: state %s version %d last event %d key %s scheduled %d; want queued 2 2 %s %d",
			state, version, lastSeq, key, scheduled, wantKey, p.Decision.ScheduledForMs)
	}
	var number int
	var executor, attemptState string
	var pristine bool
	err = s.super.QueryRow(t.Context(), `SELECT number, executor, state,
		num_nulls(worker_id, session_id, lease_token, lease_version, lease_expires_at_ms, offer_id, offered_at_ms, offer_acked_at_ms,
		          callback_token_sha256, last_callback_seq, last_callback_at_ms, started_at_ms, finished_at_ms, exit_code,
		          result_code, error_code, error_message, log_path) = 18
		FROM qinglong.attempts WHERE id = $1 AND run_id = $2`, p.AttemptID, p.RunID).Scan(&number, &executor, &attemptState, &pristine)
	if err != nil {
		t.Fatal(err)
	}
	if number != 1 || executor != "remote_worker" || attemptState != "claimed" || !pristine {
		t.Fatalf("attempt: #%d %s %s pristine=%v; want #1 remote_worker claimed with every dispatch field NULL", number, executor, attemptState, pristine)
	}
	rows, err := s.super.Query(t.Context(), `SELECT seq, name, payload FROM qinglong.run_events WHERE run_id = $1 ORDER BY seq`, p.RunID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	var created map[string]any
	for rows.Next() {
		var seq int64
		var name string
		var payload []byte
		if err := rows.Scan(&seq, &name, &payload); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
		if seq == 1 {
			if err := json.Unmarshal(payload, &created); err != nil {
				t.Fatal(err)
			}
		}
	}
	if strings.Join(names, ",") != "run.created,run.queued" {
		t.Fatalf("events %v, want run.created, run.queued", names)
	}
	for field, want := range map[string]any{
		"executionRevisionId": execID, "triggerRevision": float64(1), "triggerContentDigest": d.trigger.ContentDigest,
		"scheduledForMs": float64(p.Decision.ScheduledForMs),
	} {
		if created[field] != want {
			t.Fatalf("run.created payload %s = %v, want %v", field, created[field], want)
		}
	}
	if dg, _ := created["executionDigest"].(string); !strings.HasPrefix(dg, "sha256:") {
		t.Fatalf("run.created payload has no execution digest: %v", created)
	}
}

func jsonInt(v int64) string { b, _ := json.Marshal(v); return string(b) }

func TestFenceRacesWriteNothing(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		tamper func(*schedule.CommitParams)
		reason schedule.Reason
	}{
		"stale owner":   {func(p *schedule.CommitParams) { p.Ticket.Lease.Owner = "replica-z" }, schedule.ReasonClaimLost},
		"stale token":   {func(p *schedule.CommitParams) { p.Ticket.Lease.Token = ids.New() }, schedule.ReasonClaimLost},
		"stale version": {func(p *schedule.CommitParams) { p.Ticket.Lease.ClaimVersion-- }, schedule.ReasonClaimLost},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			d, p := s.dueTicket(t, s.runtime)
			lease := *p.Ticket.Lease
			p.Ticket.Lease = &lease
			c.tamper(&p)
			before, _ := s.row(t.Context(), d.trigger.TriggerID)
			res, _ := s.runtime.ScheduleCommit(t.Context(), p)
			if res.Outcome != schedule.Raced || res.Reason != c.reason {
				t.Fatalf("commit with a %s: %s (%s), want raced (%s)", name, res.Outcome, res.Reason, c.reason)
			}
			s.requireNothingWritten(t, d.trigger.TriggerID, before)
		})
	}
}

func TestExpiredClaimIsRacedByDatabaseTime(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	short := s.openRuntime(t, "replica-short", MinLease)
	d, p := s.dueTicket(t, short)
	before, _ := s.row(t.Context(), d.trigger.TriggerID)
	s.sleepUntilDBTime(t, p.Ticket.Lease.ExpiresAtMs)
	res, _ := short.ScheduleCommit(t.Context(), p)
	if res.Outcome != schedule.Raced || res.Reason != schedule.ReasonClaimExpired {
		t.Fatalf("commit after expiry: %s (%s), want raced (claim_expired)", res.Outcome, res.Reason)
	}
	s.requireNothingWritten(t, d.trigger.TriggerID, before)
}

func TestClockGoingBackFailsClosed(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	d, p := s.dueTicket(t, s.runtime)
	// Pretend the claim was acquired ten minutes from now: the database
	// clock is then behind the acquired time, as after a clock step back.
	const aheadMs = 600_000
	s.exec(t, `UPDATE qinglong.trigger_schedules SET updated_at_ms = updated_at_ms + $2, claim_expires_at_ms = claim_expires_at_ms + $2
		WHERE trigger_id = $1`, d.trigger.TriggerID, aheadMs)
	lease := *p.Ticket.Lease
	lease.AcquiredAtMs += aheadMs
	lease.ExpiresAtMs += aheadMs
	p.Ticket.Lease, p.Ticket.ObservedAtMs = &lease, lease.AcquiredAtMs
	p = params(t, p.Ticket)
	before, _ := s.row(t.Context(), d.trigger.TriggerID)
	res, _ := s.runtime.ScheduleCommit(t.Context(), p)
	if res.Outcome != schedule.Failed || res.Reason != schedule.ReasonClockWentBack {
		t.Fatalf("commit with the clock behind the claim: %s (%s), want failed (clock_went_back)", res.Outcome, res.Reason)
	}
	s.requireNothingWritten(t, d.trigger.TriggerID, before)
}

// TestDecisionNotFromTheClaimTimeFailsClosed: a decision taken at any
// other time than the claim's acquisition (here a node clock a second
// ahead) is refused even though it is internally consistent.
func TestDecisionNotFromTheClaimTimeFailsClosed(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	d, p := s.dueTicket(t, s.runtime)
	p.Ticket.ObservedAtMs += 1_000
	p = params(t, p.Ticket)
	before, _ := s.row(t.Context(), d.trigger.TriggerID)
	res, _ := s.runtime.ScheduleCommit(t.Context(), p)
	if res.Outcome != schedule.Failed || res.Reason != schedule.ReasonDecisionNotFromClaimTime {
		t.Fatalf("commit of a decision taken a second after the claim: %s (%s), want failed (%s)", res.Outcome, res.Reason, schedule.ReasonDecisionNotFromClaimTime)
	}
	s.requireNothingWritten(t, d.trigger.TriggerID, before)
}

func TestConnectionLostBeforeCommitIsUnavailableAndWritesNothing(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	d, p := s.dueTicket(t, s.runtime)
	before, _ := s.row(t.Context(), d.trigger.TriggerID)
	tx, err := s.super.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(t.Context(), `SELECT 1 FROM qinglong.trigger_schedules WHERE trigger_id = $1 FOR UPDATE`, d.trigger.TriggerID); err != nil {
		t.Fatal(err)
	}
	type result struct {
		res schedule.CommitResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := s.runtime.ScheduleCommit(t.Context(), p)
		done <- result{res, err}
	}()
	s.terminate(t, s.blockedBackend(t, s.roles.Runtime))
	got := <-done
	if err := tx.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got.res.Outcome != schedule.Unavailable || got.res.Reason != schedule.ReasonConnectionLost || !errors.Is(got.err, schedule.ErrUnavailable) {
		t.Fatalf("commit on a terminated backend: %+v, %v; want unavailable (connection_lost) wrapping ErrUnavailable", got.res, got.err)
	}
	s.requireNothingWritten(t, d.trigger.TriggerID, before)
}

func TestConnectionLostDuringCommitIsOutcomeUnknown(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	d, p := s.dueTicket(t, s.runtime)
	// A deferred constraint trigger runs inside COMMIT; it waits for an
	// advisory lock this test holds, so the backend is killed mid-COMMIT.
	const lockKey = 4242
	s.exec(t, `CREATE FUNCTION qinglong.test_block_commit() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN PERFORM pg_advisory_lock(4242); RETURN NULL; END $$`)
	s.exec(t, `CREATE CONSTRAINT TRIGGER test_block_commit AFTER UPDATE ON qinglong.trigger_schedules
		DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION qinglong.test_block_commit()`)
	holder, err := s.super.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Release()
	if _, err := holder.Exec(t.Context(), `SELECT pg_advisory_lock($1)`, lockKey); err != nil {
		t.Fatal(err)
	}
	type result struct {
		res schedule.CommitResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := s.runtime.ScheduleCommit(t.Context(), p)
		done <- result{res, err}
	}()
	pid := s.blockedBackend(t, s.roles.Runtime)
	var query string
	if err := s.super.QueryRow(t.Context(), `SELECT query FROM pg_stat_activity WHERE pid = $1`, pid).Scan(&query); err != nil {
		t.Fatal(err)
	}
	if !strings.EqualFold(strings.TrimSpace(query), "commit") {
		t.Fatalf("the blocked statement is %q, want COMMIT", query)
	}
	s.terminate(t, pid)
	got := <-done
	if _, err := holder.Exec(t.Context(), `SELECT pg_advisory_unlock($1)`, lockKey); err != nil {
		t.Fatal(err)
	}
	if got.res.Outcome != schedule.Unavailable || got.res.Reason != schedule.ReasonOutcomeUnknown || !errors.Is(got.err, schedule.ErrUnavailable) {
		t.Fatalf("commit whose COMMIT reply was lost: %+v, %v; want unavailable (outcome_unknown) wrapping ErrUnavailable", got.res, got.err)
	}
	// The backend died before COMMIT finished, so the durable facts show
	// no admission and a claim still held — resolvable, never duplicated.
	c, _ := s.counts(t.Context(), d.trigger.TriggerID)
	if c.Runs != 0 {
		t.Fatalf("%d runs after a COMMIT that never finished", c.Runs)
	}
}

// TestConnectionLostAfterCommitReportsTheOutcomeAndUnavailable: a backend
// terminated while its COMMIT runs finishes the commit (interrupts are held
// until it is durable), answers COMMIT and dies instead of answering the
// Sync. The admission happened and must be reported, and so must the lost
// connection: the pool would otherwise discard it silently on release, and
// a busy replica would keep admitting on new connections without ever
// turning unavailable (docs/architecture.md, "Rounds and the lifecycle").
func TestConnectionLostAfterCommitReportsTheOutcomeAndUnavailable(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	// commit_delay sleeps inside the commit's WAL flush, after the commit
	// record is written: a wide window in which the backend is past the
	// point of no return. Sessions pick it up at login, hence a second
	// runtime opened after it.
	s.exec(t, `ALTER ROLE `+quoteIdent(s.roles.Runtime)+` SET commit_delay = 100000`)
	s.exec(t, `ALTER ROLE `+quoteIdent(s.roles.Runtime)+` SET commit_siblings = 0`)
	rt := s.openRuntime(t, "replica-a", testLease)
	type result struct {
		res schedule.CommitResult
		err error
	}
	// Another backend's WAL flush can cover this commit's and skip the
	// delay; the termination then lands once the Sync was answered and
	// only the next statement can report it. Or a descheduled backend is
	// terminated while COMMIT is still before its point of no return, and
	// nothing is admitted. Either attempt missed the window (the probes
	// below tell), and the next one tries again: the other tests' commits
	// on the shared server make misses common under load, and a miss costs
	// one short round trip.
	const attempts = 20
	for attempt := 1; ; attempt++ {
		// The runtime's one connection prepares the commit's statements
		// while initialising the trigger, so the admission's COMMIT is
		// active only while it executes (a first use would show it while
		// being prepared).
		d, p := s.dueTicketNamed(t, rt, "alpha"+jsonInt(int64(attempt)))
		done := make(chan result, 1)
		go func() {
			res, err := rt.ScheduleCommit(t.Context(), p)
			done <- result{res, err}
		}()
		// Observing and terminating in one statement leaves the backend no
		// time to leave COMMIT in between.
		// A commit that ends before any look finds it in COMMIT (its
		// flush covered by another backend's, so it skipped the delay)
		// is a miss like the others.
		var pid int32
		var got result
		ended := false
		deadline := time.Now().Add(20 * time.Second)
		for pid == 0 && !ended {
			select {
			case got = <-done:
				ended = true
				continue
			default:
			}
			err := s.super.QueryRow(t.Context(), `SELECT coalesce(max(pid) FILTER (WHERE pg_terminate_backend(pid)), 0) FROM (
					SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND usename = $1 AND state = 'active' AND query = 'COMMIT' LIMIT 1) AS committing`,
				s.roles.Runtime).Scan(&pid)
			if err != nil {
				t.Fatal(err)
			}
			if time.Now().After(deadline) {
				t.Fatal("the commit neither reached COMMIT nor ended within 20 s")
			}
		}
		if ended {
			if attempt == attempts {
				t.Fatalf("the commit ended unseen in COMMIT in all %d attempts (last: %+v, %v)", attempts, got.res, got.err)
			}
			t.Logf("attempt %d: the commit ended before a look found it in COMMIT; retrying", attempt)
			continue
		}
		got = <-done
		if c, _ := s.counts(t.Context(), d.trigger.TriggerID); got.res.Outcome != schedule.Admitted && c.Runs == 0 && errors.Is(got.err, schedule.ErrUnavailable) {
			if attempt == attempts {
				t.Fatalf("the termination came before COMMIT was durable in all %d attempts", attempts)
			}
			t.Logf("attempt %d: backend %d was terminated before COMMIT was durable; retrying", attempt, pid)
			continue
		}
		if got.res.Outcome != schedule.Admitted || got.res.RunID != p.RunID {
			t.Fatalf("commit whose backend %d was terminated during a durable COMMIT: %+v, %v; want the admission", pid, got.res, got.err)
		}
		if c, _ := s.counts(t.Context(), d.trigger.TriggerID); c.Runs != 1 {
			t.Fatalf("%d runs after a COMMIT that answered, want 1", c.Runs)
		}
		if got.err == nil {
			// Either the termination came after the Sync's reply, and the
			// dead connection is still pooled for the next statement to
			// report, or the loss went unnoticed.
			if _, err := rt.NowMs(t.Context()); !errors.Is(err, schedule.ErrUnavailable) {
				t.Fatalf("backend %d was terminated during COMMIT, yet neither the commit nor the next statement (%v) reported the lost connection", pid, err)
			}
			if attempt == attempts {
				t.Fatalf("the termination missed COMMIT in all %d attempts", attempts)
			}
			t.Logf("attempt %d: backend %d was terminated once COMMIT was answered; retrying", attempt, pid)
			continue
		}
		if !errors.Is(got.err, schedule.ErrUnavailable) {
			t.Fatalf("commit whose backend %d was terminated after COMMIT answered: %v; want an error wrapping ErrUnavailable", pid, got.err)
		}
		// The fault really happened: that backend is gone.
		for {
			var alive bool
			if err := s.super.QueryRow(t.Context(), `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1)`, pid).Scan(&alive); err != nil {
				t.Fatal(err)
			}
			if !alive {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("terminated backend %d is still alive", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestParallelCommitsOfOneRoundDoNotAbortEachOther: commits of different
// rows must not conflict (each locks only its own row), so a round at full
// parallelism admits every due row without exhausting retries.
func TestParallelCommitsOfOneRoundDoNotAbortEachOther(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	const triggers = 96
	var all []published
	for i := range triggers {
		all = append(all, s.publish(t, "p"+jsonInt(int64(i))))
	}
	cfg := schedule.RoundConfig{PageSize: triggers, GraceMs: testGraceMs, Parallel: schedule.MaxParallel, NewIDs: ids.Fill}
	if sum, err := schedule.Round(t.Context(), s.runtime, cfg); err != nil || sum.Counts[schedule.Initialized] != triggers {
		t.Fatalf("initialising round: %v %v %v", sum.Counts, sum.Errors, err)
	}
	for _, d := range all {
		if err := s.makeDue(t.Context(), d.trigger.TriggerID, 1_000); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := schedule.Round(t.Context(), s.runtime, cfg)
	if err != nil || sum.Counts[schedule.Admitted] != triggers {
		t.Fatalf("admitting round at parallelism %d: %v, errors %v, %v; want %d admitted", cfg.Parallel, sum.Counts, sum.Errors, err, triggers)
	}
}

// TestFenceLostAtTheWriteWritesNothing: the write and COMMIT are pipelined,
// so a fenced update that touches no row (here a trigger skips it, as the
// clock passing expiry after verification would) must write nothing at
// all, and the outcome is raced.
func TestFenceLostAtTheWriteWritesNothing(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	d, p := s.dueTicket(t, s.runtime)
	s.exec(t, `CREATE FUNCTION qinglong.test_skip_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$`)
	s.exec(t, `CREATE TRIGGER test_skip_update BEFORE UPDATE ON qinglong.trigger_schedules
		FOR EACH ROW EXECUTE FUNCTION qinglong.test_skip_update()`)
	before, _ := s.row(t.Context(), d.trigger.TriggerID)
	res, err := s.runtime.ScheduleCommit(t.Context(), p)
	if res.Outcome != schedule.Raced || res.Reason != schedule.ReasonClaimExpired || err != nil {
		t.Fatalf("commit whose fenced update touched nothing: %+v, %v; want raced (claim_expired)", res, err)
	}
	s.requireNothingWritten(t, d.trigger.TriggerID, before)
}

// TestConnectionLostDuringTheWriteIsConnectionLost: the backend dies while
// executing the write pipelined before COMMIT, so COMMIT never ran and the
// outcome is known (nothing written), not unknown.
func TestConnectionLostDuringTheWriteIsConnectionLost(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	d, p := s.dueTicket(t, s.runtime)
	const lockKey = 4343
	s.exec(t, `CREATE FUNCTION qinglong.test_block_event() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN PERFORM pg_advisory_lock(4343); RETURN NEW; END $$`)
	s.exec(t, `CREATE TRIGGER test_block_event BEFORE INSERT ON qinglong.run_events
		FOR EACH ROW EXECUTE FUNCTION qinglong.test_block_event()`)
	holder, err := s.super.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Release()
	if _, err := holder.Exec(t.Context(), `SELECT pg_advisory_lock($1)`, lockKey); err != nil {
		t.Fatal(err)
	}
	before, _ := s.row(t.Context(), d.trigger.TriggerID)
	type result struct {
		res schedule.CommitResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := s.runtime.ScheduleCommit(t.Context(), p)
		done <- result{res, err}
	}()
	s.terminate(t, s.blockedBackend(t, s.roles.Runtime))
	got := <-done
	if _, err := holder.Exec(t.Context(), `SELECT pg_advisory_unlock($1)`, lockKey); err != nil {
		t.Fatal(err)
	}
	if got.res.Outcome != schedule.Unavailable || got.res.Reason != schedule.ReasonConnectionLost || !errors.Is(got.err, schedule.ErrUnavailable) {
		t.Fatalf("commit whose backend died in the write: %+v, %v; want unavailable (connection_lost) wrapping ErrUnavailable", got.res, got.err)
	}
	s.requireNothingWritten(t, d.trigger.TriggerID, before)
}

// TestCancelDuringTheWriteAbandonsItPromptly: the write and COMMIT do not
// ride on the caller's context (cutting the connection would make the
// outcome unknown), yet a caller that gives up must not wait behind a
// write blocked on a lock: the cancel request interrupts it, the server
// skips COMMIT and the outcome is known.
func TestCancelDuringTheWriteAbandonsItPromptly(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	d, p := s.dueTicket(t, s.runtime)
	lock, err := s.super.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback(context.Background()) // released below; no-op then
	if _, err := lock.Exec(t.Context(), `LOCK TABLE qinglong.runs IN EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	before, _ := s.row(t.Context(), d.trigger.TriggerID)
	ctx, cancel := context.WithCancel(t.Context())
	type result struct {
		res schedule.CommitResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := s.runtime.ScheduleCommit(ctx, p)
		done <- result{res, err}
	}()
	s.blockedBackend(t, s.roles.Runtime)
	cancel()
	var got result
	select {
	case got = <-done:
	case <-time.After(commitReplyTimeout / 2):
		t.Fatal("a cancelled commit is still waiting for its blocked write")
	}
	if err := lock.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got.res.Outcome != schedule.Failed || got.res.Reason != schedule.ReasonCancelled || !errors.Is(got.err, context.Canceled) {
		t.Fatalf("commit cancelled in its write: %+v, %v; want failed (cancelled) wrapping context.Canceled", got.res, got.err)
	}
	s.requireNothingWritten(t, d.trigger.TriggerID, before)
}
