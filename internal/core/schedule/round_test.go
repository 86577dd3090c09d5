package schedule

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// recordingStore hands out fixed tickets and records commits. It exercises
// the round's own logic; the storage guarantees are tested against the real
// adapters in internal/testkit/storetest.
type recordingStore struct {
	tickets  []Ticket
	mu       sync.Mutex
	commits  []CommitParams
	pages    []int
	inFlight atomic.Int32
	maxSeen  atomic.Int32
	release  chan struct{}
}

func (s *recordingStore) ScheduleTake(_ context.Context, p TakeParams) ([]Ticket, error) {
	if len(s.tickets) > p.Limit {
		return s.tickets[:p.Limit], nil
	}
	return s.tickets, nil
}

func (s *recordingStore) ScheduleCommit(_ context.Context, p CommitParams) (CommitResult, error) {
	s.mu.Lock()
	s.commits = append(s.commits, p)
	s.mu.Unlock()
	switch p.Decision.Action {
	case Admit:
		return CommitResult{Outcome: Admitted, RunID: p.RunID, Passed: p.Decision.Passed}, nil
	case SkipLate:
		return CommitResult{Outcome: Skipped, Passed: p.Decision.Passed}, nil
	}
	return CommitResult{Outcome: Initialized, Passed: p.Decision.Passed}, nil
}

func (s *recordingStore) ScheduleCommitPage(ctx context.Context, ps []CommitParams) ([]CommitResult, error) {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxSeen.Load()
		if n <= m || s.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	if s.release != nil {
		<-s.release
	}
	s.mu.Lock()
	s.pages = append(s.pages, len(ps))
	s.mu.Unlock()
	out := make([]CommitResult, len(ps))
	for i, p := range ps {
		out[i], _ = s.ScheduleCommit(ctx, p)
	}
	return out, nil
}

func (s *recordingStore) Executor() task.Executor { return task.LocalProcess }

func ticket(id string, cursorMs *int64, observed int64, pol trigger.MisfirePolicy) Ticket {
	return Ticket{
		Snapshot: Snapshot{
			TriggerID:          id,
			TriggerCreatedAtMs: t0 - 10*minute,
			Cron:               trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: pol},
			NextFireAtMs:       cursorMs,
		},
		ObservedAtMs: observed,
	}
}

func TestRoundAllocatesRunIdentitiesOnlyForAdmits(t *testing.T) {
	t.Parallel()
	st := &recordingStore{tickets: []Ticket{
		ticket("admit", cursor(t0), t0+5, trigger.FireOnce),
		ticket("init", cursor(t0+minute), t0+7, trigger.FireOnce),
		ticket("skip", cursor(t0), t0+30*minute+30_000, trigger.Skip),
	}}
	var allocated atomic.Int32
	sum, err := Round(context.Background(), st, RoundConfig{PageSize: 16, Parallel: 2, GraceMs: 10_000, NewIDs: func(dst []string) {
		allocated.Add(int32(len(dst)))
		for i := range dst {
			dst[i] = "id"
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if allocated.Load() != 2 {
		t.Fatalf("allocated %d ids, want 2 (one Run + one Attempt for the single admit)", allocated.Load())
	}
	if sum.Counts[Admitted] != 1 || sum.Counts[Initialized] != 1 || sum.Counts[Skipped] != 1 || sum.Taken != 3 {
		t.Fatalf("summary %+v", sum)
	}
	if *sum.FirstAcquiredMs != t0+5 || *sum.LastAcquiredMs != t0+30*minute+30_000 {
		t.Fatalf("acquired range %d..%d", *sum.FirstAcquiredMs, *sum.LastAcquiredMs)
	}
	for _, c := range st.commits {
		if (c.RunID != "") != (c.Decision.Action == Admit) {
			t.Fatalf("commit %+v: run id present iff admit violated", c)
		}
	}
}

func TestRoundDecidesFromEachTicketsOwnObservationTime(t *testing.T) {
	t.Parallel()
	// Same cursor, different observation times: one is on time, one is
	// past the grace period with skip.
	st := &recordingStore{tickets: []Ticket{
		ticket("on-time", cursor(t0), t0+1, trigger.Skip),
		ticket("late", cursor(t0), t0+5*minute+30_000, trigger.Skip),
	}}
	if _, err := Round(context.Background(), st, RoundConfig{PageSize: 4, Parallel: 1, GraceMs: 10_000, NewIDs: sameIDs}); err != nil {
		t.Fatal(err)
	}
	got := map[string]Action{}
	for _, c := range st.commits {
		got[c.Ticket.TriggerID] = c.Decision.Action
	}
	if got["on-time"] != Admit || got["late"] != SkipLate {
		t.Fatalf("decisions %v", got)
	}
}

func TestRoundCommitsAPageInBoundedGroups(t *testing.T) {
	t.Parallel()
	var tickets []Ticket
	for i := 0; i < MaxPageSize; i++ {
		tickets = append(tickets, ticket("t", cursor(t0+minute), t0, trigger.Skip))
	}
	st := &recordingStore{tickets: tickets, release: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = Round(context.Background(), st, RoundConfig{PageSize: MaxPageSize, Parallel: 3, NewIDs: sameIDs})
	}()
	for i := 0; i < 3; i++ {
		st.release <- struct{}{}
	}
	<-done
	if st.maxSeen.Load() > 3 || st.maxSeen.Load() < 1 {
		t.Fatalf("max concurrent commit groups %d, want 1..3", st.maxSeen.Load())
	}
	if len(st.pages) != 3 || len(st.commits) != MaxPageSize {
		t.Fatalf("committed %d decisions in groups %v, want %d in 3", len(st.commits), st.pages, MaxPageSize)
	}
	small := &recordingStore{tickets: tickets[:MinCommitGroup]}
	if _, err := Round(context.Background(), small, RoundConfig{PageSize: MaxPageSize, Parallel: 16, NewIDs: sameIDs}); err != nil {
		t.Fatal(err)
	}
	if len(small.pages) != 1 {
		t.Fatalf("a page of %d committed in groups %v, want one", MinCommitGroup, small.pages)
	}
}

func TestRoundNeverCommitsADecisionThatFailedBeforeTheCommit(t *testing.T) {
	t.Parallel()
	bad := ticket("bad-cron", cursor(t0), t0+5, trigger.FireOnce)
	bad.Cron.Expression = "not a cron"
	st := &recordingStore{tickets: []Ticket{bad, ticket("good", cursor(t0), t0+5, trigger.FireOnce)}}
	sum, err := Round(context.Background(), st, RoundConfig{PageSize: 16, Parallel: 1, GraceMs: minute, NewIDs: sameIDs})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.commits) != 1 || st.commits[0].Ticket.TriggerID != "good" {
		t.Fatalf("the store saw %d decisions, want only the good one", len(st.commits))
	}
	var te *TicketError
	if sum.Counts[Failed] != 1 || sum.Counts[Admitted] != 1 || len(sum.Errors) != 1 || !errors.As(sum.Errors[0], &te) || te.Reason != ReasonCronInvalid {
		t.Fatalf("summary %+v", sum)
	}
}

// sameIDs is a RoundConfig.NewIDs for rounds whose ids do not matter.
func sameIDs(dst []string) {
	for i := range dst {
		dst[i] = "x"
	}
}

// TestAPagesAdmissionsTakeTheirIdsInPageOrderRunBeforeAttempt: a page's
// ids are minted together once its tickets are decided, one call for the
// page, and each admission takes them as deciding the tickets one after
// the other gave them: in page order, its Run's before its Attempt's.
func TestAPagesAdmissionsTakeTheirIdsInPageOrderRunBeforeAttempt(t *testing.T) {
	t.Parallel()
	st := &recordingStore{tickets: []Ticket{
		ticket("a", cursor(t0), t0+5, trigger.FireOnce),
		ticket("init", cursor(t0+minute), t0+7, trigger.FireOnce),
		ticket("b", cursor(t0), t0+9, trigger.FireOnce),
		ticket("c", cursor(t0), t0+11, trigger.FireOnce),
	}}
	calls, next := 0, 0
	_, err := Round(context.Background(), st, RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 10_000, NewIDs: func(dst []string) {
		calls++
		for i := range dst {
			next++
			dst[i] = strconv.Itoa(next)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("ids minted in %d calls for one page; want 1", calls)
	}
	var got []string
	for _, c := range st.commits {
		if c.Decision.Action == Admit {
			got = append(got, c.Ticket.TriggerID+":"+c.RunID+","+c.AttemptID)
		}
	}
	if want := []string{"a:1,2", "b:3,4", "c:5,6"}; !slices.Equal(got, want) {
		t.Errorf("admissions took ids %v; want %v", got, want)
	}
}

func TestRoundConfigRejectsOutOfRange(t *testing.T) {
	t.Parallel()
	for _, c := range []RoundConfig{
		{PageSize: 0, Parallel: 1, NewIDs: sameIDs},
		{PageSize: 257, Parallel: 1, NewIDs: sameIDs},
		{PageSize: 1, Parallel: 0, NewIDs: sameIDs},
		{PageSize: 1, Parallel: 1},
	} {
		if _, err := Round(context.Background(), &recordingStore{}, c); err == nil {
			t.Fatalf("config %+v accepted", c)
		}
	}
}

// overlapStore commits as recordingStore does, except that it passes the
// admissions of the busy triggers over for overlap, as an adapter does
// when it finds an unfinished Run under its lock.
type overlapStore struct {
	recordingStore
	busy map[string]bool
}

func (s *overlapStore) ScheduleCommitPage(ctx context.Context, ps []CommitParams) ([]CommitResult, error) {
	out := make([]CommitResult, len(ps))
	for i, p := range ps {
		if s.busy[p.Ticket.TriggerID] {
			p.Decision, p.RunID, p.AttemptID = p.Decision.OverlapPassed(), "", ""
		}
		out[i], _ = s.ScheduleCommit(ctx, p)
	}
	return out, nil
}

// A round counts the occurrences its commits report passing over, so an
// admission the store passed over for overlap counts as that, beside what
// the decision passed over itself; what the decisions were handed does not
// count.
func TestRoundCountsWhatTheCommitsPassedOver(t *testing.T) {
	t.Parallel()
	st := &overlapStore{
		recordingStore: recordingStore{tickets: []Ticket{
			// Three minutes late under fire_once: the oldest occurrence is
			// admitted and the three after it collapse into it.
			ticket("busy", cursor(t0-3*minute), t0+5, trigger.FireOnce),
			ticket("free", cursor(t0), t0+5, trigger.FireOnce),
		}},
		busy: map[string]bool{"busy": true},
	}
	sum, err := Round(context.Background(), st, RoundConfig{PageSize: 4, Parallel: 1, GraceMs: 10_000, NewIDs: ids.Fill})
	if err != nil {
		t.Fatal(err)
	}
	want := map[PassReason]int64{PassOverlap: 1, PassCollapsed: 3}
	if sum.Counts[Skipped] != 1 || sum.Counts[Admitted] != 1 || !maps.Equal(sum.Passed, want) {
		t.Fatalf("counts %v, passed %v; want one skip, one admission and passed %v", sum.Counts, sum.Passed, want)
	}
}

// admittingAtStore admits as recordingStore does, each Run created at its
// ticket's observation time, as an adapter reports AdmittedAtMs.
type admittingAtStore struct{ recordingStore }

func (s *admittingAtStore) ScheduleCommitPage(ctx context.Context, ps []CommitParams) ([]CommitResult, error) {
	out, err := s.recordingStore.ScheduleCommitPage(ctx, ps)
	for i := range out {
		out[i].AdmittedAtMs = ps[i].Ticket.ObservedAtMs
	}
	return out, err
}

// A round measures an admission within the misfire grace of its due time
// as admission lag and a later one (a fire_once catch-up after an outage)
// as catch-up lag, apart.
func TestARoundCountsACatchUpApartFromTheAdmissionLag(t *testing.T) {
	t.Parallel()
	st := &admittingAtStore{recordingStore{tickets: []Ticket{
		ticket("on-time", cursor(t0), t0+5_000, trigger.FireOnce),
		ticket("after-an-outage", cursor(t0-60*minute), t0+5_000, trigger.FireOnce),
	}}}
	sum, err := Round(context.Background(), st, RoundConfig{PageSize: 4, Parallel: 1, GraceMs: 10_000, NewIDs: ids.Fill})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Counts[Admitted] != 2 || len(sum.AdmissionLagMs) != 1 || sum.AdmissionLagMs[0] != 5_000 ||
		len(sum.CatchUpLagMs) != 1 || sum.CatchUpLagMs[0] != 60*minute+5_000 {
		t.Fatalf("admitted %d, lag %v, catch-up lag %v; want the on-time one's 5 s apart from the catch-up's hour", sum.Counts[Admitted], sum.AdmissionLagMs, sum.CatchUpLagMs)
	}
}
