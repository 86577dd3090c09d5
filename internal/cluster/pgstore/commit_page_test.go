package pgstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// commitPage commits ps through rt's page path, which never fails as a
// whole.
func commitPage(t testing.TB, rt *Runtime, ps []schedule.CommitParams) []schedule.CommitResult {
	t.Helper()
	res, err := rt.ScheduleCommitPage(t.Context(), ps)
	if err != nil || len(res) != len(ps) {
		t.Fatalf("page of %d: %d results, %v", len(ps), len(res), err)
	}
	return res
}

// paramsOf decides every ticket.
func paramsOf(t testing.TB, tks []schedule.Ticket) []schedule.CommitParams {
	t.Helper()
	ps := make([]schedule.CommitParams, len(tks))
	for i, tk := range tks {
		ps[i] = params(t, tk)
	}
	return ps
}

// initialiseAll takes every uninitialised row with rt and commits the
// page: all initialized.
func (s *store) initialiseAll(t testing.TB, rt *Runtime, want int) {
	t.Helper()
	for i, res := range commitPage(t, rt, paramsOf(t, s.takeAll(t, rt))) {
		if res.Outcome != schedule.Initialized {
			t.Fatalf("initialising row %d: %s (%s) %v", i, res.Outcome, res.Reason, res.Err)
		}
		want--
	}
	if want != 0 {
		t.Fatalf("%d rows were not initialised", want)
	}
}

// takeByTrigger indexes a take by trigger id.
func (s *store) takeByTrigger(t testing.TB, rt *Runtime) map[string]schedule.Ticket {
	t.Helper()
	out := map[string]schedule.Ticket{}
	for _, tk := range s.takeAll(t, rt) {
		out[tk.TriggerID] = tk
	}
	return out
}

// restoreClaim puts a schedule row back into the claimed state tk saw, as
// if its commit had never happened.
func (s *store) restoreClaim(t testing.TB, tk schedule.Ticket) {
	t.Helper()
	l := tk.Lease
	if err := s.tamper(t.Context(), `UPDATE qinglong.trigger_schedules
		SET next_fire_at_ms = $2, last_scheduled_at_ms = $3, state_version = $4, claim_owner = $5, claim_token = $6,
		    claim_version = $7, claim_expires_at_ms = $8, updated_at_ms = $9
		WHERE trigger_id = $1`, tk.TriggerID, tk.NextFireAtMs, tk.LastScheduledAtMs, tk.StateVersion, l.Owner, l.Token,
		l.ClaimVersion, l.ExpiresAtMs, l.AcquiredAtMs); err != nil {
		t.Fatal(err)
	}
}

func TestAPageWithMixedRowsGivesEachItsOwnOutcome(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	short := s.openRuntime(t, "replica-a", MinLease)
	other := s.openRuntime(t, "replica-b", testLease)
	names := []string{"republished", "taken-over", "replayed", "contradicted", "due-1", "due-2", "due-3"}
	d := map[string]published{}
	for _, n := range names {
		d[n] = s.publish(t, n)
	}
	s.initialiseAll(t, s.runtime, len(names))
	id := func(n string) string { return d[n].trigger.TriggerID }

	// Taken over: claimed by this replica, expired in database time and
	// claimed by another replica.
	if err := s.makeDue(t.Context(), id("taken-over"), 1_000); err != nil {
		t.Fatal(err)
	}
	stale := s.takeByTrigger(t, short)[id("taken-over")]
	s.sleepUntilDBTime(t, stale.Lease.ExpiresAtMs)
	if tk, ok := s.takeByTrigger(t, other)[id("taken-over")]; !ok || tk.Lease.Owner != "replica-b" {
		t.Fatal("the other replica did not take the expired claim over")
	}
	for _, n := range names {
		if n != "taken-over" {
			if err := s.makeDue(t.Context(), id(n), 1_000); err != nil {
				t.Fatal(err)
			}
		}
	}
	tks := s.takeByTrigger(t, s.runtime)
	if len(tks) != len(names)-1 {
		t.Fatalf("took %d due rows, want %d", len(tks), len(names)-1)
	}
	tks[id("taken-over")] = stale
	ps := map[string]schedule.CommitParams{}
	for _, n := range names {
		ps[n] = params(t, tks[id(n)])
		if ps[n].Decision.Action != schedule.Admit {
			t.Fatalf("%s: decision %s, want admit", n, ps[n].Decision.Action)
		}
	}
	// Replayed: already admitted by the same decision. Contradicted:
	// admitted, then its row put back under the same claim, so the fence
	// holds while its occurrence already has its Run.
	for _, n := range []string{"replayed", "contradicted"} {
		if res, err := s.runtime.ScheduleCommit(t.Context(), ps[n]); err != nil || res.Outcome != schedule.Admitted {
			t.Fatalf("admitting %s first: %+v, %v", n, res, err)
		}
	}
	s.restoreClaim(t, tks[id("contradicted")])
	c := ps["contradicted"]
	c.RunID, c.AttemptID = ids.New(), ids.New()
	ps["contradicted"] = c
	// Republished after the take.
	svc := s.fixture().Service
	spec := d["republished"].trigger.Spec
	spec.Name = "tick-2"
	if _, _, err := svc.PublishTrigger(t.Context(), d["republished"].project.ID, id("republished"), d["republished"].task,
		d["republished"].trigger.Revision, ids.New(), spec); err != nil {
		t.Fatal(err)
	}
	before := map[string]storetest.Row{}
	for _, n := range names {
		before[n], _ = s.row(t.Context(), id(n))
	}

	page := make([]schedule.CommitParams, len(names))
	for i, n := range names {
		page[i] = ps[n]
	}
	results := commitPage(t, s.runtime, page)
	want := map[string]struct {
		outcome schedule.Outcome
		reason  schedule.Reason
	}{
		"republished":  {schedule.Raced, schedule.ReasonTriggerRevisionChanged},
		"taken-over":   {schedule.Raced, schedule.ReasonStateVersionChanged},
		"replayed":     {schedule.Raced, schedule.ReasonStateVersionChanged},
		"contradicted": {schedule.Failed, schedule.ReasonOccurrenceExists},
		"due-1":        {schedule.Admitted, ""},
		"due-2":        {schedule.Admitted, ""},
		"due-3":        {schedule.Admitted, ""},
	}
	for i, n := range names {
		res, w := results[i], want[n]
		if res.Outcome != w.outcome || res.Reason != w.reason {
			t.Errorf("%s: %s (%s) %v, want %s (%s)", n, res.Outcome, res.Reason, res.Err, w.outcome, w.reason)
		}
		if w.outcome == schedule.Admitted {
			c, _ := s.counts(t.Context(), id(n))
			if res.RunID != ps[n].RunID || c != (storetest.Counts{Runs: 1, Attempts: 1, Events: 2}) {
				t.Errorf("%s: run %q, wrote %+v; want its own Run, one Attempt, two events", n, res.RunID, c)
			}
			continue
		}
		// Nothing of a failed row was written: what a lone commit of the
		// same decision now says is what the page said.
		after, _ := s.row(t.Context(), id(n))
		if after.StateVersion != before[n].StateVersion || !equalPtr(after.NextFireAtMs, before[n].NextFireAtMs) {
			t.Errorf("%s: schedule row changed %+v -> %+v", n, before[n], after)
		}
		alone, _ := s.runtime.ScheduleCommit(t.Context(), ps[n])
		if alone.Outcome != res.Outcome || alone.Reason != res.Reason {
			t.Errorf("%s: the page said %s (%s), a lone commit says %s (%s)", n, res.Outcome, res.Reason, alone.Outcome, alone.Reason)
		}
	}
	for n, runs := range map[string]int{"republished": 0, "taken-over": 0, "replayed": 1, "contradicted": 1} {
		if c, _ := s.counts(t.Context(), id(n)); c.Runs != runs {
			t.Errorf("%s: %d Runs, want %d", n, c.Runs, runs)
		}
	}
}

func TestSerializationStormAdmitsEachOccurrenceOnce(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	replicas := []*Runtime{s.runtime, s.openRuntime(t, "replica-b", testLease)}
	const triggers, rounds = 24, 2
	var triggerIDs []string
	for i := range triggers {
		triggerIDs = append(triggerIDs, s.publish(t, fmt.Sprintf("storm-%02d", i)).trigger.TriggerID)
	}
	s.initialiseAll(t, s.runtime, triggers)
	for round := range rounds {
		for _, id := range triggerIDs {
			if err := s.makeDue(t.Context(), id, 1_000); err != nil {
				t.Fatal(err)
			}
		}
		page := paramsOf(t, s.takeAll(t, s.runtime))
		if len(page) != triggers {
			t.Fatalf("round %d: took %d", round, len(page))
		}
		// Overlapping pages of the same decisions, committed at once from
		// both replicas: every row is fought over by two to four
		// transactions that lock it in the same order.
		slices := [][]schedule.CommitParams{page, page[:16], page[8:], page[4:20], reversed(page)}
		results := make([][]schedule.CommitResult, len(slices))
		var wg sync.WaitGroup
		for i, sl := range slices {
			wg.Go(func() {
				res, err := replicas[i%len(replicas)].ScheduleCommitPage(context.Background(), sl)
				if err != nil {
					t.Errorf("page %d: %v", i, err)
				}
				results[i] = res
			})
		}
		wg.Wait()
		admitted := map[string]int{}
		for i, sl := range slices {
			for k, res := range results[i] {
				switch res.Outcome {
				case schedule.Admitted:
					admitted[sl[k].Ticket.TriggerID]++
				case schedule.Raced:
				default:
					t.Fatalf("round %d page %d: trigger %s %s (%s) %v; want admitted or raced", round, i, sl[k].Ticket.TriggerID, res.Outcome, res.Reason, res.Err)
				}
			}
		}
		for _, id := range triggerIDs {
			if admitted[id] != 1 {
				t.Fatalf("round %d: trigger %s admitted %d times, want once", round, id, admitted[id])
			}
		}
	}
	var runs, occurrences int
	if err := s.super.QueryRow(t.Context(), `SELECT count(*), count(DISTINCT (project_id, idempotency_key)) FROM qinglong.runs`).
		Scan(&runs, &occurrences); err != nil {
		t.Fatal(err)
	}
	if runs != triggers*rounds || occurrences != runs {
		t.Fatalf("%d Runs for %d occurrences, want %d each", runs, occurrences, triggers*rounds)
	}
}

func reversed[T any](in []T) []T {
	out := make([]T, len(in))
	for i, v := range in {
		out[len(in)-1-i] = v
	}
	return out
}

func TestAHotRowSplitsItsPageRatherThanStarvingIt(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	const triggers = 8
	var triggerIDs []string
	for i := range triggers {
		triggerIDs = append(triggerIDs, s.publish(t, fmt.Sprintf("hot-%02d", i)).trigger.TriggerID)
	}
	s.initialiseAll(t, s.runtime, triggers)
	for _, id := range triggerIDs {
		if err := s.makeDue(t.Context(), id, 1_000); err != nil {
			t.Fatal(err)
		}
	}
	page := paramsOf(t, s.takeAll(t, s.runtime))
	hot := page[triggers/2].Ticket.TriggerID

	// The page meets a version of the hot row committed after its
	// snapshot, for certain: a holder locks the row before the page starts
	// and commits only once the page's lock statement waits on it (polled:
	// under load, a page left to find the row between two other sessions
	// took it in a gap, and met no new version at all). Then three sessions
	// take turns holding the row's lock, each committing a new version of
	// it (every fence column unchanged), so a retry of the hot row meets one
	// too, unless it slips into a gap between them.
	const touch = `UPDATE qinglong.trigger_schedules SET updated_at_ms = updated_at_ms WHERE trigger_id = $1`
	holder, err := s.super.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Rollback(context.Background()) }()
	if _, err := holder.Exec(t.Context(), touch, hot); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		results []schedule.CommitResult
		err     error
	}
	answered := make(chan answer, 1)
	go func() {
		res, err := s.runtime.ScheduleCommitPage(t.Context(), page)
		answered <- answer{res, err}
	}()
	s.blockedBackend(t, s.roles.Runtime)
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for ctx.Err() == nil {
				_ = pgx.BeginFunc(ctx, s.super, func(tx pgx.Tx) error {
					_, err := tx.Exec(ctx, touch, hot)
					if err == nil {
						time.Sleep(30 * time.Millisecond)
					}
					return err
				})
			}
		})
	}
	if err := holder.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	a := <-answered
	stop()
	wg.Wait()
	if a.err != nil || len(a.results) != len(page) {
		t.Fatalf("page of %d: %d results, %v", len(page), len(a.results), a.err)
	}
	results := a.results
	for i, res := range results {
		id := page[i].Ticket.TriggerID
		if id == hot {
			// Its own fate: exhausted, or through a gap between the sessions.
			if res.Outcome != schedule.Admitted && res.Reason != schedule.ReasonRetriesExhausted {
				t.Fatalf("the hot row: %s (%s) %v, want its own retries exhausted (or admitted)", res.Outcome, res.Reason, res.Err)
			}
			continue
		}
		if res.Outcome != schedule.Admitted {
			t.Fatalf("trigger %s beside the hot row: %s (%s) %v, want admitted", id, res.Outcome, res.Reason, res.Err)
		}
	}
	if results[triggers/2].Outcome == schedule.Admitted {
		return
	}
	// The hot row itself was committable all along once left alone.
	if res, err := s.runtime.ScheduleCommit(t.Context(), page[triggers/2]); err != nil || res.Outcome != schedule.Admitted {
		t.Fatalf("the hot row alone afterwards: %+v, %v", res, err)
	}
}
