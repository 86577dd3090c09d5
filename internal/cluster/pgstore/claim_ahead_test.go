package pgstore

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// dueIn places a trigger's cursor inMs from the database clock (negative:
// in the past) and returns its due time.
func (s *store) dueIn(t testing.TB, triggerID string, inMs int64) int64 {
	t.Helper()
	var due int64
	if err := s.super.QueryRow(t.Context(), `UPDATE qinglong.trigger_schedules
		SET next_fire_at_ms = `+ClockMsSQL+` + $2, state_version = state_version + 1
		WHERE trigger_id = $1 RETURNING next_fire_at_ms + due_offset_ms`, triggerID, inMs).Scan(&due); err != nil {
		t.Fatal(err)
	}
	return due
}

// takeAhead claims every row due by dueByMs with rt, sorted by trigger id.
func takeAhead(t testing.TB, rt *Runtime, dueByMs int64) []schedule.Ticket {
	t.Helper()
	tks, _, err := rt.ScheduleTakeAhead(t.Context(), schedule.TakeParams{Limit: schedule.MaxPageSize}, dueByMs)
	if err != nil {
		t.Fatalf("take ahead: %v", err)
	}
	slices.SortFunc(tks, func(a, b schedule.Ticket) int { return compareStrings(a.TriggerID, b.TriggerID) })
	return tks
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func triggerIDs(tks []schedule.Ticket) []string {
	out := make([]string, len(tks))
	for i, tk := range tks {
		out[i] = tk.TriggerID
	}
	return out
}

// TestAClaimAheadTakesTheRowsDueByItsInstantAndNeverMoreThanHalfALeaseAhead:
// a claim ahead to an instant takes the rows due already and those due by
// it, not later ones; and however far ahead it is asked to reach, never a
// row due more than half a lease after the database clock, so every claim
// taken ahead still has half its lease at its row's due time.
func TestAClaimAheadTakesTheRowsDueByItsInstantAndNeverMoreThanHalfALeaseAhead(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	halfLease := s.runtime.cfg.Lease.Milliseconds() / 2
	rows := map[string]int64{"due": -1_000, "soon": 2_000, "later": halfLease - 5_000, "beyond": halfLease + 5_000}
	id := map[string]string{}
	for name := range rows {
		id[name] = s.publish(t, name).trigger.TriggerID
	}
	s.initialiseAll(t, s.runtime, len(rows))
	for name, in := range rows {
		s.dueIn(t, id[name], in)
	}
	now, err := s.runtime.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{id["due"], id["soon"]}
	slices.Sort(want)
	if got := triggerIDs(takeAhead(t, s.runtime, now+4_000)); !slices.Equal(got, want) {
		t.Fatalf("a claim ahead 4 s took %v, want the rows due and due within 4 s %v", got, want)
	}
	if got := triggerIDs(takeAhead(t, s.runtime, now+10*halfLease)); !slices.Equal(got, []string{id["later"]}) {
		t.Fatalf("a claim ahead five leases took %v, want only the row due within half a lease %v", got, id["later"])
	}
	if got := s.takeAll(t, s.runtime); len(got) != 0 {
		t.Fatalf("a plain claim took %d rows; the one left falls due after more than half a lease", len(got))
	}
}

// TestARowClaimedAheadIsAdmittedAtItsDueTimeOnceTheDatabaseClockReachesIt:
// a row claimed ahead is decided at its own due time. Committed through the
// page path before the database clock reaches it, the commit waits for the
// clock and admits it, never earlier by the database clock; a single
// commit before the due time fails closed, and a decision made at any
// other instant than the claim's or the due time is refused, both writing
// nothing.
func TestARowClaimedAheadIsAdmittedAtItsDueTimeOnceTheDatabaseClockReachesIt(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	d := s.publish(t, "ahead")
	s.initialiseAll(t, s.runtime, 1)
	due := s.dueIn(t, d.trigger.TriggerID, 1_500)
	tks := takeAhead(t, s.runtime, due)
	if len(tks) != 1 {
		t.Fatalf("took %d rows ahead, want 1", len(tks))
	}
	tk := tks[0]
	before, _ := s.row(t.Context(), d.trigger.TriggerID)

	between := tk
	between.ObservedAtMs = tk.Lease.AcquiredAtMs + 1
	if res, _ := s.runtime.ScheduleCommit(t.Context(), params(t, between)); res.Outcome != schedule.Failed || res.Reason != schedule.ReasonDecisionNotFromClaimTime {
		t.Fatalf("a decision between the claim and the due time: %s (%s), want failed (%s)", res.Outcome, res.Reason, schedule.ReasonDecisionNotFromClaimTime)
	}
	tk.ObservedAtMs = due
	p := params(t, tk)
	if p.Decision.Action != schedule.Admit {
		t.Fatalf("decided at its due time: %s, want admit", p.Decision.Action)
	}
	if res, _ := s.runtime.ScheduleCommit(t.Context(), p); res.Outcome != schedule.Failed || res.Reason != schedule.ReasonClockWentBack {
		t.Fatalf("a single commit before the due time: %s (%s), want failed (%s)", res.Outcome, res.Reason, schedule.ReasonClockWentBack)
	}
	s.requireNothingWritten(t, d.trigger.TriggerID, before)

	res := commitPage(t, s.runtime, []schedule.CommitParams{p})
	if res[0].Outcome != schedule.Admitted {
		t.Fatalf("the page commit of a row claimed ahead: %s (%s) %v, want admitted", res[0].Outcome, res[0].Reason, res[0].Err)
	}
	var scheduled, created int64
	if err := s.super.QueryRow(t.Context(), `SELECT scheduled_for_ms, created_at_ms FROM qinglong.runs WHERE trigger_id = $1`,
		d.trigger.TriggerID).Scan(&scheduled, &created); err != nil {
		t.Fatal(err)
	}
	if scheduled != due || created < due {
		t.Fatalf("Run scheduled for %d, created at %d (database time): want scheduled for the due time %d and created not before it", scheduled, created, due)
	}
	if c, _ := s.counts(t.Context(), d.trigger.TriggerID); c.Runs != 1 {
		t.Fatalf("%d Runs, want 1", c.Runs)
	}
	t.Logf("claimed %d ms ahead, admitted %d ms after the due time", due-tk.Lease.AcquiredAtMs, created-due)
}
