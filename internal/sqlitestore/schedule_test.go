package sqlitestore

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/ids"
	"github.com/qinglong/qinglong/internal/project"
	"github.com/qinglong/qinglong/internal/qlerror"
	"github.com/qinglong/qinglong/internal/run"
	"github.com/qinglong/qinglong/internal/schedule"
	"github.com/qinglong/qinglong/internal/storetest"
	"github.com/qinglong/qinglong/internal/trigger"
)

func TestTakeOrdersUninitialisedFirstThenByFireTimeProjectAndTrigger(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b, c := e.defs(t, "a", everyMinute), e.defs(t, "b", everyMinute), e.defs(t, "c", everyMinute)
	e.due(t, a.Trigger.TriggerID, 5_000)
	e.due(t, b.Trigger.TriggerID, 60_000)
	got := e.take(t, schedule.MaxPageSize)
	want := []string{c.Trigger.TriggerID, b.Trigger.TriggerID, a.Trigger.TriggerID}
	if len(got) != len(want) {
		t.Fatalf("took %d rows, want %d", len(got), len(want))
	}
	for i, tk := range got {
		if tk.TriggerID != want[i] {
			t.Fatalf("position %d: trigger %s, want %s (uninitialised, then the oldest due first)", i, tk.TriggerID, want[i])
		}
	}
	if page := e.take(t, 2); len(page) != 2 || page[0].TriggerID != want[0] || page[1].TriggerID != want[1] {
		t.Fatalf("a page of 2 is not the first two rows of the order")
	}
}

func TestTakeSkipsRowsThatCannotSchedule(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	live := e.defs(t, "live", everyMinute)

	archived := e.defs(t, "archived", everyMinute)
	archived.Project.Status = project.Archived
	if _, err := e.store.ProjectSave(t.Context(), archived.Project); err != nil {
		t.Fatal(err)
	}

	disabled := e.project(t, "disabled")
	dtask := e.task(t, disabled, "job", 0, ids.New(), true)
	e.trigger(t, disabled, dtask, "off", ids.New(), 0, everyMinute, false)

	stale := e.defs(t, "stale", everyMinute)
	e.task(t, stale.Project, "job", 1, stale.Task.TaskID, true)

	got := e.take(t, schedule.MaxPageSize)
	if len(got) != 1 || got[0].TriggerID != live.Trigger.TriggerID {
		t.Fatalf("took %d rows; want only the live trigger (not archived, disabled or pinned to an old task revision)", len(got))
	}
}

// The take must touch O(page) rows: both branches read the partial due
// index in claim order, so neither scans the table nor sorts.
func TestTakeReadsTheDueIndexInClaimOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, q := range []string{qScheduleTakeUninitialised, qScheduleTakeDue} {
		rows, err := e.raw.Query("EXPLAIN QUERY PLAN "+q, 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		joined := strings.Join(plan, "\n")
		if !strings.HasPrefix(plan[0], "SEARCH s USING INDEX trigger_schedules_due") || strings.Contains(joined, "TEMP B-TREE") || strings.Contains(joined, "SCAN") {
			t.Fatalf("take plan reads more than one page:\n%s", joined)
		}
	}
}

func TestFirstDecisionStoresTheCursorOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.defs(t, "alpha", everyMinute)
	tk := e.takeOne(t)
	res, err := e.commit(t, commitParams(t, tk))
	if err != nil {
		t.Fatal(err)
	}
	requireOutcome(t, res, schedule.Initialized, "")
	r := e.rowOf(t, d.Trigger.TriggerID)
	if r.NextFireAtMs == nil || *r.NextFireAtMs <= tk.ObservedAtMs || r.StateVersion != tk.StateVersion+1 || r.LastScheduledAtMs != nil {
		t.Fatalf("row after initialise %+v; want a future cursor, state version +1, nothing scheduled", r)
	}
	if c := e.countsOf(t, d.Trigger.TriggerID); c != (storetest.Counts{}) {
		t.Fatalf("initialise wrote %+v", c)
	}
}

func TestAdmitWritesQueuedRunClaimedAttemptAndTwoEventsWithTheCursorAdvance(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.defs(t, "alpha", everyMinute)
	e.due(t, d.Trigger.TriggerID, 1_000)
	tk := e.takeOne(t)
	p := commitParams(t, tk)
	res, err := e.commit(t, p)
	if err != nil {
		t.Fatal(err)
	}
	requireOutcome(t, res, schedule.Admitted, "")
	got, err := e.store.RunGet(t.Context(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	r := got.Run
	wantKey := schedule.IdempotencyKey(d.Trigger.TriggerID, 1, p.Decision.ScheduledForMs)
	if r.State != run.Queued || r.Version != 2 || r.LastEventSeq != 2 || r.IdempotencyKey != wantKey || r.ScheduledForMs != *tk.NextFireAtMs {
		t.Fatalf("run %+v; want queued, version 2, key %s", r, wantKey)
	}
	if len(got.Attempts) != 1 || got.Attempts[0].ID != p.AttemptID || got.Attempts[0].State != run.AttemptClaimed || got.Attempts[0].Executor != "local_process" {
		t.Fatalf("attempts %+v; want attempt 1 claimed for local_process", got.Attempts)
	}
	if len(got.Events) != 2 || got.Events[0].Name != run.EventCreated || got.Events[1].Name != run.EventQueued || got.Events[1].Seq != 2 {
		t.Fatalf("events %+v; want run.created, run.queued", got.Events)
	}
	row := e.rowOf(t, d.Trigger.TriggerID)
	if row.NextFireAtMs == nil || *row.NextFireAtMs != p.Decision.NextFireAtMs || row.LastScheduledAtMs == nil || *row.LastScheduledAtMs != r.ScheduledForMs || row.StateVersion != tk.StateVersion+1 {
		t.Fatalf("row after admit %+v; want cursor %d, last scheduled %d", row, p.Decision.NextFireAtMs, r.ScheduledForMs)
	}
}

// Two schedulers (two processes, or two goroutines) holding the same ticket
// race to commit it: the state_version CAS lets exactly one win.
func TestTwoCommittersOfOneOccurrenceAdmitExactlyOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	other, err := Open(t.Context(), Config{Path: e.path, NowMs: e.clock.NowMs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	d := e.defs(t, "alpha", everyMinute)
	e.due(t, d.Trigger.TriggerID, 1_000)
	tk := e.takeOne(t)
	stores := []*Store{e.store, other}
	results := make([]schedule.CommitResult, 2)
	var wg sync.WaitGroup
	for i, s := range stores {
		p := commitParams(t, tk)
		wg.Go(func() {
			var err error
			results[i], err = s.ScheduleCommit(t.Context(), p)
			if err != nil {
				t.Errorf("committer %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	admitted, racedN := 0, 0
	for _, r := range results {
		switch {
		case r.Outcome == schedule.Admitted:
			admitted++
		case r.Outcome == schedule.Raced && r.Reason == "state_version_changed":
			racedN++
		}
	}
	if admitted != 1 || racedN != 1 {
		t.Fatalf("outcomes %+v; want one admitted and one raced on the state version", results)
	}
	if c := e.countsOf(t, d.Trigger.TriggerID); c != (storetest.Counts{Runs: 1, Attempts: 1, Events: 2}) {
		t.Fatalf("durable facts %+v; want exactly one run, one attempt, two events", c)
	}
}

func TestDefinitionDriftBetweenTakeAndCommitRaces(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		reason string
		drift  func(t *testing.T, e *env, d defs)
	}{
		"trigger republished": {"trigger_revision_changed", func(t *testing.T, e *env, d defs) {
			c := everyMinute
			c.Expression = "*/2 * * * *"
			e.trigger(t, d.Project, d.Task, "tick", d.Trigger.TriggerID, 1, c, true)
		}},
		"project archived": {"project_inactive", func(t *testing.T, e *env, d defs) {
			d.Project.Status = project.Archived
			if _, err := e.store.ProjectSave(t.Context(), d.Project); err != nil {
				t.Fatal(err)
			}
		}},
		"task republished": {"task_revision_changed", func(t *testing.T, e *env, d defs) {
			e.task(t, d.Project, "job", 1, d.Task.TaskID, true)
		}},
		"cursor moved by another scheduler": {"state_version_changed", func(t *testing.T, e *env, d defs) {
			e.due(t, d.Trigger.TriggerID, 2_000)
		}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			d := e.defs(t, "alpha", everyMinute)
			e.due(t, d.Trigger.TriggerID, 1_000)
			tk := e.takeOne(t)
			before := e.rowOf(t, d.Trigger.TriggerID)
			c.drift(t, e, d)
			after := e.rowOf(t, d.Trigger.TriggerID)
			res, err := e.commit(t, commitParams(t, tk))
			if err != nil {
				t.Fatal(err)
			}
			requireOutcome(t, res, schedule.Raced, c.reason)
			if n := e.countsOf(t, d.Trigger.TriggerID); n != (storetest.Counts{}) {
				t.Fatalf("raced commit wrote %+v", n)
			}
			if now := e.rowOf(t, d.Trigger.TriggerID); now.StateVersion != after.StateVersion {
				t.Fatalf("raced commit moved the row: %+v -> %+v -> %+v", before, after, now)
			}
		})
	}
}

func TestBrokenExecutionRevisionFailsClosed(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		reason string
		tamper string
	}{
		"missing": {"execution_revision_missing", `DELETE FROM execution_revisions`},
		"corrupt": {"execution_revision_corrupt", `DROP TRIGGER execution_revisions_immutable;
			UPDATE execution_revisions SET command_json = json_set(command_json, '$.args', json_array('rm', '-rf', '/'))`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			d := e.defs(t, "alpha", everyMinute)
			e.due(t, d.Trigger.TriggerID, 1_000)
			tk := e.takeOne(t)
			if _, err := e.raw.Exec(c.tamper); err != nil {
				t.Fatal(err)
			}
			res, err := e.commit(t, commitParams(t, tk))
			requireOutcome(t, res, schedule.Failed, c.reason)
			requireCode(t, err, qlerror.Internal, "admission with a "+name+" execution revision")
			if n := e.countsOf(t, d.Trigger.TriggerID); n != (storetest.Counts{}) {
				t.Fatalf("failed admission wrote %+v", n)
			}
			if r := e.rowOf(t, d.Trigger.TriggerID); r.StateVersion != tk.StateVersion {
				t.Fatalf("failed admission advanced the row to state version %d", r.StateVersion)
			}
		})
	}
}

// A write that fails in the middle of an admission (here the run.queued
// event, refused by an injected trigger) rolls back the run, the attempt,
// run.created and the cursor.
func TestAdmissionIsAllOrNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.defs(t, "alpha", everyMinute)
	e.due(t, d.Trigger.TriggerID, 1_000)
	tk := e.takeOne(t)
	if _, err := e.raw.Exec(`CREATE TRIGGER injected_fault BEFORE INSERT ON run_events WHEN NEW.name = 'run.queued'
		BEGIN SELECT RAISE(ABORT, 'injected fault'); END`); err != nil {
		t.Fatal(err)
	}
	res, err := e.commit(t, commitParams(t, tk))
	requireOutcome(t, res, schedule.Failed, "write_failed")
	if err == nil || !strings.Contains(err.Error(), "injected fault") {
		t.Fatalf("the injected fault did not fire: %v", err)
	}
	if n := e.countsOf(t, d.Trigger.TriggerID); n != (storetest.Counts{}) {
		t.Fatalf("partial admission left %+v behind", n)
	}
	if r := e.rowOf(t, d.Trigger.TriggerID); r.StateVersion != tk.StateVersion || *r.NextFireAtMs != *tk.NextFireAtMs {
		t.Fatalf("partial admission moved the row: %+v", r)
	}
}

// Replaying an occurrence that is already admitted — as after a COMMIT
// whose reply was lost, with the cursor somehow back at the same due time —
// is stopped by the idempotency key.
func TestReplayedOccurrenceIsStoppedByItsIdempotencyKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.defs(t, "alpha", everyMinute)
	e.due(t, d.Trigger.TriggerID, 1_000)
	tk := e.takeOne(t)
	if res, err := e.commit(t, commitParams(t, tk)); err != nil || res.Outcome != schedule.Admitted {
		t.Fatalf("first admission: %+v, %v", res, err)
	}
	if _, err := e.raw.Exec(`UPDATE trigger_schedules SET next_fire_at_ms = ? WHERE trigger_id = ?`, *tk.NextFireAtMs, d.Trigger.TriggerID); err != nil {
		t.Fatal(err)
	}
	replay := e.takeOne(t)
	p := commitParams(t, replay)
	if p.Decision.ScheduledForMs != *tk.NextFireAtMs {
		t.Fatalf("replay decided %+v, want the same occurrence %d", p.Decision, *tk.NextFireAtMs)
	}
	res, err := e.commit(t, p)
	if err != nil {
		t.Fatal(err)
	}
	requireOutcome(t, res, schedule.Raced, "occurrence_exists")
	if c := e.countsOf(t, d.Trigger.TriggerID); c.Runs != 1 {
		t.Fatalf("%d runs for one occurrence", c.Runs)
	}
}

func TestLateOccurrenceWithSkipPolicyMovesTheCursorWithoutARun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := everyMinute
	c.MisfirePolicy = trigger.Skip
	d := e.defs(t, "alpha", c)
	e.due(t, d.Trigger.TriggerID, 10*testGraceMs)
	tk := e.takeOne(t)
	res, err := e.commit(t, commitParams(t, tk))
	if err != nil {
		t.Fatal(err)
	}
	requireOutcome(t, res, schedule.Skipped, "")
	r := e.rowOf(t, d.Trigger.TriggerID)
	if *r.NextFireAtMs <= tk.ObservedAtMs || r.LastScheduledAtMs != nil {
		t.Fatalf("row after skip %+v; want a cursor past now and nothing scheduled", r)
	}
	if n := e.countsOf(t, d.Trigger.TriggerID); n != (storetest.Counts{}) {
		t.Fatalf("skip wrote %+v", n)
	}
}

func TestCommitRejectsADecisionThatDoesNotFitItsTicket(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.defs(t, "alpha", everyMinute)
	e.due(t, d.Trigger.TriggerID, 1_000)
	tk := e.takeOne(t)
	p := commitParams(t, tk)
	p.Decision.DueMs--
	p.Decision.ScheduledForMs--
	res, err := e.commit(t, p)
	requireOutcome(t, res, schedule.Failed, "decision_invalid")
	requireCode(t, err, qlerror.Internal, "a decision about another occurrence")
	if n := e.countsOf(t, d.Trigger.TriggerID); n != (storetest.Counts{}) {
		t.Fatalf("rejected decision wrote %+v", n)
	}
}

// Another process holding the write lock past the busy timeout makes the
// commit fail as unavailable with nothing written — it is not a race.
func TestCommitBehindAHeldWriteLockFailsAsUnavailable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	impatient, err := Open(t.Context(), Config{Path: e.path, NowMs: e.clock.NowMs, BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { impatient.Close() })
	d := e.defs(t, "alpha", everyMinute)
	e.due(t, d.Trigger.TriggerID, 1_000)
	tk := e.takeOne(t)
	conn, err := e.raw.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatalf("hold the write lock: %v", err)
	}
	res, err := impatient.ScheduleCommit(t.Context(), commitParams(t, tk))
	if _, rerr := conn.ExecContext(t.Context(), "ROLLBACK"); rerr != nil {
		t.Fatal(rerr)
	}
	requireOutcome(t, res, schedule.Failed, "begin_failed")
	requireCode(t, err, qlerror.Unavailable, "commit behind a held write lock")
	if n := e.countsOf(t, d.Trigger.TriggerID); n != (storetest.Counts{}) {
		t.Fatalf("blocked commit wrote %+v", n)
	}
}

func TestRoundAdmitsEveryDueTriggerOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var triggers []string
	for i := range 20 {
		triggers = append(triggers, e.defs(t, "p"+string(rune('a'+i)), everyMinute).Trigger.TriggerID)
	}
	for _, id := range triggers {
		e.due(t, id, 1_000)
	}
	cfg := schedule.RoundConfig{PageSize: 8, GraceMs: testGraceMs, Parallel: 4, NewID: ids.New}
	admitted := 0
	for {
		sum, err := schedule.Round(t.Context(), e.store, cfg)
		if err != nil || len(sum.Errors) > 0 {
			t.Fatalf("round: %v %v", err, sum.Errors)
		}
		admitted += sum.Counts[schedule.Admitted]
		if !sum.Full(cfg.PageSize) {
			break
		}
	}
	if admitted != len(triggers) {
		t.Fatalf("admitted %d, want %d", admitted, len(triggers))
	}
	for _, id := range triggers {
		if c := e.countsOf(t, id); c != (storetest.Counts{Runs: 1, Attempts: 1, Events: 2}) {
			t.Fatalf("trigger %s: %+v", id, c)
		}
	}
}
