package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/qinglong/qinglong/internal/cluster/availability"
	"github.com/qinglong/qinglong/internal/core/loop"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestRoundClaimsAtMostOnePageAndNeverMoreThanTheHardCap(t *testing.T) {
	t.Parallel()
	for _, page := range []int{1, 16, MaxPageSize} {
		b := setup(t, Config{PageSize: page}, &fakeStore{backlog: 1000, observed: t0 + 1})
		sum, err := b.coord.Round(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if sum.Taken != page || b.store.takes[0] != page {
			t.Fatalf("page %d: took %d with limit %d", page, sum.Taken, b.store.takes[0])
		}
	}
	if _, err := New(Config{Owner: "r", PageSize: MaxPageSize + 1}, &fakeStore{}, nil, nil); err == nil {
		t.Fatal("a page above the hard cap was accepted")
	}
}

func TestRunIdentitiesAreAllocatedOnlyForAdmits(t *testing.T) {
	t.Parallel()
	st := &fakeStore{backlog: 3, observed: t0 - 1} // cursor t0 not yet due: initialize only
	b := setup(t, Config{PageSize: 8}, st)
	sum, err := b.coord.Round(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Counts[schedule.Initialized] != 3 || sum.Counts[schedule.Admitted] != 0 {
		t.Fatalf("counts %v, want 3 initialized", sum.Counts)
	}
	st.mu.Lock()
	st.backlog, st.observed = 2, t0+5
	st.mu.Unlock()
	sum, err = b.coord.Round(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Counts[schedule.Admitted] != 2 || len(sum.Admitted) != 2 {
		t.Fatalf("counts %v admitted %v, want 2 admits", sum.Counts, sum.Admitted)
	}
	seen := map[string]bool{}
	for _, c := range st.commits {
		admit := c.Decision.Action == schedule.Admit
		if admit != (c.RunID != "") || admit != (c.AttemptID != "") {
			t.Fatalf("commit %s (%s): run %q attempt %q — identities must exist exactly for admits", c.Ticket.TriggerID, c.Decision.Action, c.RunID, c.AttemptID)
		}
		if admit && (seen[c.RunID] || seen[c.AttemptID] || c.RunID == c.AttemptID) {
			t.Fatalf("identity reused: %+v", c)
		}
		seen[c.RunID], seen[c.AttemptID] = true, true
	}
}

func TestRoundDecidesWithTheClaimsAcquiredTimeOnly(t *testing.T) {
	t.Parallel()
	st := &fakeStore{backlog: 1, observed: t0 + 2*minute + 7}
	b := setup(t, Config{PageSize: 1}, st)
	if _, err := b.coord.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := st.commits[0].Decision
	// fire_once from cursor t0, observed at t0+2m+7ms: admit t0 once and
	// jump to the first occurrence after the observation time.
	if d.Action != schedule.Admit || d.ScheduledForMs != t0 || d.NextFireAtMs != t0+3*minute {
		t.Fatalf("decision %+v, want admit %d with next %d (from the acquired time)", d, t0, t0+3*minute)
	}
}

func TestRoundSummaryIsLoggedWithCountsAndAcquiredRange(t *testing.T) {
	t.Parallel()
	b := setup(t, Config{PageSize: 4}, &fakeStore{backlog: 4, observed: t0 + 9})
	if _, err := b.coord.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	recs := b.logs.records(t, schedule.CodeRound)
	if len(recs) != 1 {
		t.Fatalf("%d round records, want 1: %s", len(recs), b.logs)
	}
	r := recs[0]
	if r["taken"] != 4.0 || r["admitted"] != 4.0 || r["raced"] != 0.0 || r["first_acquired_ms"] != float64(t0+9) || r["last_acquired_ms"] != float64(t0+9) || r["owner"] != "replica-a" {
		t.Fatalf("round record %v", r)
	}
	if _, err := b.coord.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	empty := b.logs.records(t, schedule.CodeRound)[1]
	if _, ok := empty["first_acquired_ms"]; ok || empty["taken"] != 0.0 {
		t.Fatalf("an empty round reports an acquired time: %v", empty)
	}
}

func TestFullPageStartsTheNextRoundAtOnce(t *testing.T) {
	t.Parallel()
	drained := make(chan struct{})
	var once sync.Once
	st := &fakeStore{backlog: 40 * 16, observed: t0 + 1, onTake: func(_, remaining int) {
		if remaining == 0 {
			once.Do(func() { close(drained) })
		}
	}}
	// An hour's cadence: only back-to-back rounds can drain 40 pages in time.
	b := setup(t, Config{PageSize: 16, Cadence: time.Hour}, st)
	if err := b.coord.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-drained:
	case <-time.After(10 * time.Second):
		t.Fatalf("backlog not drained back to back: %d takes", st.takeCount())
	}
	if err := b.coord.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestShortPageWaitsForTheCadence(t *testing.T) {
	t.Parallel()
	first := make(chan struct{})
	var once sync.Once
	st := &fakeStore{backlog: 3, observed: t0 + 1, onTake: func(int, int) { once.Do(func() { close(first) }) }}
	b := setup(t, Config{PageSize: 16, Cadence: time.Hour}, st)
	if err := b.coord.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-first
	if err := b.coord.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := st.takeCount(); n != 1 {
		t.Fatalf("%d takes; a short page must wait a cadence (1h) before the next", n)
	}
}

// A full page of rows whose commits all fail for a cause the round puts no
// row aside for (here the schema refusing every write, as a database
// missing a migration would) keeps failing on every claim: starting the
// next round at once would spin on them as fast as the database answers.
// It waits for the cadence. (A page failed on its rows' own stored state,
// a corrupt digest, is put aside and starts the next round at once: the
// storetest unreadable cases.)
func TestAFullPageThatMadeNoProgressWaitsForTheCadence(t *testing.T) {
	t.Parallel()
	st := failingCommits{fakeStore: &fakeStore{backlog: 10 * 4, observed: t0 + 1},
		res: schedule.CommitResult{Outcome: schedule.Failed, Reason: schedule.ReasonConstraintViolation},
		err: qlerror.New(qlerror.Internal, "the schema refused the admission")}
	logs := &logBuffer{}
	// At debug: the second round, failing as the first did, is said there.
	debug := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	co, err := New(Config{Owner: "replica-a", PageSize: 4, Cadence: time.Hour}, st, debug, availability.New())
	if err != nil {
		t.Fatal(err)
	}
	if more, err := co.round(context.Background()); err != nil || more {
		t.Fatalf("a full page that all failed asks for the next round at once (more=%v, %v)", more, err)
	}
	if err := co.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitForRecords(t, logs, schedule.CodeRound, 2)
	if err := co.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := st.takeCount(); n != 2 {
		t.Fatalf("%d claims: after its first round the loop must wait a cadence (1h), not claim again at once", n)
	}
	// Each round's four tickets failed alike: the first round's one
	// warning counts them (the other three at debug); the second round,
	// failing for the same cause within a minute, is held back whole —
	// its round line and its tickets at debug.
	var warned []map[string]any
	for _, r := range logs.records(t, schedule.CodeTicketFailed) {
		if r["level"] == "WARN" {
			warned = append(warned, r)
		}
	}
	if len(warned) != 1 || warned[0]["reason"] != "constraint_violation" || warned[0]["outcome"] != "failed" || warned[0]["tickets"] != 4.0 {
		t.Fatalf("ticket warnings %v; want one counting the first round's four tickets", warned)
	}
	if rounds := logs.records(t, schedule.CodeRound); rounds[1]["level"] != "DEBUG" {
		t.Fatalf("the second round, failing as the first, is logged at %v; want DEBUG", rounds[1]["level"])
	}
}

// A full page whose commits all fail closed on their rows' own stored
// state (here a corrupt task digest, which no round mends) leaves each row
// claimed until its claim expires, out of the next claims' way: the round
// line says so (unreadable) and the next round starts at once, since the
// next page holds other rows.
func TestAFullPageFailedOnItsRowsStoredStateIsLoggedAsPutAsideAndStartsTheNextAtOnce(t *testing.T) {
	t.Parallel()
	st := failingCommits{fakeStore: &fakeStore{backlog: 4, observed: t0 + 1},
		res: schedule.CommitResult{Outcome: schedule.Failed, Reason: schedule.ReasonTaskDigestCorrupt},
		err: qlerror.New(qlerror.Internal, "task x revision 1: content digest mismatch")}
	logs := &logBuffer{}
	co, err := New(Config{Owner: "replica-a", PageSize: 4, Cadence: time.Hour}, st, slog.New(slog.NewJSONHandler(logs, nil)), availability.New())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := co.round(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := st.takeCount(); n != 2 {
		t.Fatalf("%d claims; want the page put aside, then the next claimed at once", n)
	}
	recs := logs.records(t, schedule.CodeRound)
	// The empty round after it is logged at debug, below this log's level.
	if len(recs) != 1 || recs[0]["taken"] != 4.0 || recs[0]["failed"] != 4.0 || recs[0]["unreadable"] != 4.0 {
		t.Fatalf("round records %v; want 4 taken, failed and put aside", recs)
	}
}

// waitForRecords waits, bounded, until the log holds n records with code.
func waitForRecords(t *testing.T, logs *logBuffer, code string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(logs.records(t, code)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %d %s records: %s", n, code, logs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRoundErrorsGoToTheSinkAndNeverStopTheLoop(t *testing.T) {
	t.Parallel()
	second := make(chan struct{})
	st := &fakeStore{observed: t0 + 1,
		takeErr: func(call int) error {
			if call == 1 {
				return qlerror.Wrap(qlerror.Internal, errors.New(`ERROR: bad value "hunter2" for $1 in SELECT secret FROM x (password=hunter2)`), "claiming schedule rows")
			}
			return nil
		},
		onTake: func(call, _ int) {
			if call == 2 {
				close(second)
			}
		},
	}
	b := setup(t, Config{Cadence: 250 * time.Millisecond}, st)
	if err := b.coord.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-second:
	case <-time.After(10 * time.Second):
		t.Fatal("the loop stopped after a failed round")
	}
	if err := b.coord.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	recs := b.logs.records(t, schedule.CodeRoundFailed)
	if len(recs) != 1 || recs[0]["error_code"] != "internal" || recs[0]["error"] != "claiming schedule rows" {
		t.Fatalf("round_failed records %v", recs)
	}
	if strings.Contains(b.logs.String(), "hunter2") || strings.Contains(b.logs.String(), "SELECT") {
		t.Fatalf("the diagnostic sink leaked driver text: %s", b.logs)
	}
	if !b.latch.Available() {
		t.Fatal("a non-connection error made the replica unavailable")
	}
}

func TestAfterALostConnectionTheCoordinatorTakesNoClaim(t *testing.T) {
	t.Parallel()
	lost := qlerror.Wrap(qlerror.Unavailable, errors.Join(schedule.ErrUnavailable, errors.New("read tcp: connection reset by peer")), "claiming schedule rows: the database is unavailable")
	st := &fakeStore{backlog: 2, observed: t0 + 1, takeErr: func(call int) error {
		if call == 1 {
			return lost
		}
		return nil
	}}
	b := setup(t, Config{PageSize: 2}, st)
	if _, err := b.coord.round(context.Background()); !errors.Is(err, schedule.ErrUnavailable) {
		t.Fatalf("round error %v", err)
	}
	if b.latch.Available() {
		t.Fatal("replica still available after a lost connection")
	}
	// The database answers again, but this activation is done: its rounds
	// claim nothing until a fresh activation replaces it.
	for range 3 {
		if _, err := b.coord.round(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := st.takeCount(); n != 1 || b.latch.Available() {
		t.Fatalf("%d takes (want only the failed one), available %v", n, b.latch.Available())
	}
	if n := len(b.logs.records(t, CodeUnavailable)); n != 1 {
		t.Fatalf("%d unavailable records, want exactly 1", n)
	}
}

func TestCommitLosingTheConnectionLatchesTheReplica(t *testing.T) {
	t.Parallel()
	st := &fakeStore{backlog: 2, observed: t0 + 1, commitErr: qlerror.Wrap(qlerror.Unavailable, schedule.ErrUnavailable, "committing: outcome unknown")}
	b := setup(t, Config{PageSize: 2}, st)
	sum, err := b.coord.Round(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Counts[schedule.Unavailable] != 2 || b.latch.Available() {
		t.Fatalf("counts %v available %v", sum.Counts, b.latch.Available())
	}
	recs := b.logs.records(t, schedule.CodeTicketFailed)
	if len(recs) != 2 || recs[0]["reason"] != "outcome_unknown" || recs[0]["outcome"] != "unavailable" {
		t.Fatalf("ticket records %v", recs)
	}
}

func TestStopReturnsDrainTimeoutNamingTheRunningRound(t *testing.T) {
	t.Parallel()
	gate := make(chan struct{})
	inCommit := make(chan struct{})
	var once sync.Once
	// The stop must land once the commit has begun: landing while the take
	// is still on its way, it would have the round commit nothing at all.
	st := &fakeStore{backlog: 1, observed: t0 + 1, onCommit: func() { once.Do(func() { close(inCommit) }) }, commitGate: gate}
	b := setup(t, Config{StopTimeout: 100 * time.Millisecond}, st)
	if err := b.coord.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-inCommit
	err := b.coord.Stop(context.Background())
	close(gate) // let the stuck commit return so no goroutine outlives the test
	if !errors.Is(err, loop.ErrDrainTimeout) || !strings.Contains(err.Error(), "a round was still running") {
		t.Fatalf("stop error %v, want a drain timeout naming the round", err)
	}
	if len(b.logs.records(t, CodeDrainTimedOut)) != 1 {
		t.Fatalf("drain timeout not reported: %s", b.logs)
	}
}

func TestStartStopCyclesUnderRace(t *testing.T) {
	t.Parallel()
	for i := 0; i < 300; i++ {
		st := &fakeStore{backlog: 40, observed: t0 + 1}
		b := setup(t, Config{PageSize: 4, Cadence: 250 * time.Millisecond, StopTimeout: time.Second}, st)
		if err := b.coord.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := b.coord.Start(context.Background()); err != nil {
			t.Fatalf("cycle %d: second Start: %v", i, err)
		}
		if err := b.coord.Stop(context.Background()); err != nil {
			t.Fatalf("cycle %d: %v", i, err)
		}
		if err := b.coord.Stop(context.Background()); err != nil {
			t.Fatalf("cycle %d: second Stop: %v", i, err)
		}
		if err := b.coord.Start(context.Background()); err == nil {
			t.Fatalf("cycle %d: a stopped scheduler restarted", i)
		}
	}
}

func TestTicketsAbandonedByAStopAreNotWarnings(t *testing.T) {
	t.Parallel()
	st := &fakeStore{backlog: 3, observed: t0 + 1, commitErr: qlerror.Wrap(qlerror.Internal, context.Canceled, "commit interrupted")}
	b := setup(t, Config{PageSize: 3}, st)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sum, err := b.coord.Round(ctx)
	if err != nil {
		t.Fatal(err)
	}
	recs := b.logs.records(t, schedule.CodeTicketFailed)
	if sum.Counts[schedule.Unavailable] != 3 || len(recs) != 3 {
		t.Fatalf("counts %v, %d ticket records", sum.Counts, len(recs))
	}
	for _, r := range recs {
		if r["level"] != "DEBUG" {
			t.Fatalf("abandoned ticket logged at %v: %v", r["level"], r)
		}
	}
	if !b.latch.Available() {
		t.Fatal("a stop made the replica unavailable")
	}
}

// failingCommits commits every ticket to one fixed failure.
type failingCommits struct {
	*fakeStore
	res schedule.CommitResult
	err error
}

func (s failingCommits) ScheduleCommit(context.Context, schedule.CommitParams) (schedule.CommitResult, error) {
	return s.res, s.err
}

func (s failingCommits) ScheduleCommitPage(ctx context.Context, ps []schedule.CommitParams) ([]schedule.CommitResult, error) {
	return commitEach(ctx, s.ScheduleCommit, ps), nil
}

func TestATicketFailingOnADatabaseErrorIsLoggedByItsStableCodes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		state     string
		reason    schedule.Reason
		errorCode string
		outcome   schedule.Outcome
		wrap      func(error) error
	}{
		{"53200", schedule.ReasonOutOfSharedMemory, "internal", schedule.Failed, func(err error) error { return fmt.Errorf("commit of trigger x: %w", err) }},
		{"57P01", schedule.ReasonConnectionLost, "unavailable", schedule.Unavailable, func(err error) error {
			return fmt.Errorf("%w (connection_lost): %w", schedule.ErrUnavailable, err)
		}},
	} {
		pgErr := &pgconn.PgError{Code: c.state, Message: "server text", Hint: "You might need to increase max_pred_locks_per_transaction."}
		st := failingCommits{fakeStore: &fakeStore{backlog: 1, observed: t0 + 1},
			res: schedule.CommitResult{Outcome: c.outcome, Reason: c.reason}, err: c.wrap(pgErr)}
		logs := &logBuffer{}
		co, err := New(Config{Owner: "replica-a"}, st, slog.New(slog.NewJSONHandler(logs, nil)), availability.New())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := co.Round(context.Background()); err != nil {
			t.Fatal(err)
		}
		recs := logs.records(t, schedule.CodeTicketFailed)
		if len(recs) != 1 {
			t.Fatalf("%s: ticket records %v", c.state, recs)
		}
		r := recs[0]
		if r["reason"] != string(c.reason) || r["sqlstate"] != c.state || r["outcome"] != string(c.outcome) || r["error_code"] != c.errorCode {
			t.Fatalf("%s: ticket record %v; want reason %s, the SQLSTATE and error code %s", c.state, r, c.reason, c.errorCode)
		}
		if strings.Contains(logs.String(), "uncoded") || strings.Contains(logs.String(), "max_pred_locks") || strings.Contains(logs.String(), "server text") {
			t.Fatalf("%s: the sink got uncoded or driver text: %s", c.state, logs)
		}
	}
}

// The admitted hook hears of a round's admissions after every one of its
// commits returned (outside their transactions), and only of rounds that
// admitted something.
func TestAdmittedHookRunsAfterTheCommitsOfARoundThatAdmitted(t *testing.T) {
	t.Parallel()
	st := &fakeStore{backlog: 3, observed: t0 - 1} // initialize only
	b := setup(t, Config{PageSize: 8}, st)
	var heard []int
	var commitsAtHook []int
	b.coord.OnAdmitted(func(_ context.Context, runs int) {
		st.mu.Lock()
		defer st.mu.Unlock()
		heard = append(heard, runs)
		commitsAtHook = append(commitsAtHook, len(st.commits))
	})
	if _, err := b.coord.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(heard) != 0 {
		t.Fatalf("a round that admitted nothing called the hook: %v", heard)
	}
	st.mu.Lock()
	st.backlog, st.observed = 2, t0+5
	st.mu.Unlock()
	if _, err := b.coord.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(heard) != 1 || heard[0] != 2 || commitsAtHook[0] != 5 {
		t.Fatalf("hook heard %v with %v commits done; want 2 admitted Runs once, after all 5 commits", heard, commitsAtHook)
	}
}

// heldPages holds every page commit from the second on until released,
// and can fail them as a lost database does.
type heldPages struct {
	*fakeStore
	pages   atomic.Int32
	started chan int32
	release chan struct{}
	lose    bool
	// untilStop: a held page also ends when its round's context does;
	// cutShort: it then commits nothing and fails, as a commit whose
	// transaction the stop cancelled.
	untilStop, cutShort bool
}

func (s *heldPages) ScheduleCommitPage(ctx context.Context, ps []schedule.CommitParams) ([]schedule.CommitResult, error) {
	n := s.pages.Add(1)
	if n >= 2 {
		s.started <- n
		if s.untilStop {
			select {
			case <-s.release:
			case <-ctx.Done():
				if s.cutShort {
					return nil, ctx.Err()
				}
			}
		} else {
			<-s.release
		}
	}
	if s.lose && n >= 2 {
		out := make([]schedule.CommitResult, len(ps))
		for i := range out {
			out[i] = schedule.ReasonConnectionLost.Result()
			out[i].Err = fmt.Errorf("%w (connection_lost): gone", schedule.ErrUnavailable)
		}
		return out, nil
	}
	return s.fakeStore.ScheduleCommitPage(ctx, ps)
}

// waitTakes waits, bounded, until st has taken n pages.
func waitTakes(t *testing.T, st *fakeStore, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for st.takeCount() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d takes, want %d", st.takeCount(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestTheNextPageIsClaimedWhileAPageCommitsWithAtMostOneInFlight(t *testing.T) {
	t.Parallel()
	st := &heldPages{fakeStore: &fakeStore{backlog: 10 * 4, observed: t0 + 1}, started: make(chan int32, 16), release: make(chan struct{})}
	co := started(t, Config{PageSize: 4, Cadence: time.Hour}, st, availability.New())
	if n := <-st.started; n != 2 {
		t.Fatalf("page %d held first, want 2", n)
	}
	// Page 2 is still committing: page 3 is claimed meanwhile, page 4 not.
	waitTakes(t, st.fakeStore, 3)
	time.Sleep(50 * time.Millisecond)
	if n := st.takeCount(); n != 3 {
		t.Fatalf("%d takes while page 2 commits, want 3 (one page in flight, one claimed)", n)
	}
	close(st.release)
	waitTakes(t, st.fakeStore, 11)
	if err := co.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(st.commits) != 40 {
		t.Fatalf("%d decisions committed, want all 40", len(st.commits))
	}
}

func TestALostDatabaseStopsClaimingAtOnceWithAPageInFlight(t *testing.T) {
	t.Parallel()
	st := &heldPages{fakeStore: &fakeStore{backlog: 10 * 4, observed: t0 + 1}, started: make(chan int32, 16), release: make(chan struct{}), lose: true}
	latch := availability.New()
	co := started(t, Config{PageSize: 4, Cadence: 250 * time.Millisecond}, st, latch)
	<-st.started
	waitTakes(t, st.fakeStore, 3)
	close(st.release)
	select {
	case <-latch.Lost():
	case <-time.After(10 * time.Second):
		t.Fatal("the lost database was never learnt")
	}
	time.Sleep(600 * time.Millisecond) // two cadences
	if err := co.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n, pages := st.takeCount(), st.pages.Load(); n != 3 || pages != 2 {
		t.Fatalf("%d takes and %d page commits after the loss, want 3 and 2: the claimed page is not committed", n, pages)
	}
	if released := st.releasedIDs(); len(released) != 0 {
		t.Fatalf("released %v through a lost database, want nothing", released)
	}
	var held []string
	for _, tk := range co.Held() {
		held = append(held, tk.TriggerID)
	}
	slices.Sort(held)
	want := []string{"trigger-2-0", "trigger-2-1", "trigger-2-2", "trigger-2-3", "trigger-3-0", "trigger-3-1", "trigger-3-2", "trigger-3-3"}
	if !slices.Equal(held, want) {
		t.Fatalf("kept %v for the next activation, want the page whose commit lost the database and the page beside it, %v", held, want)
	}
	if again := co.Held(); len(again) != 0 {
		t.Fatalf("Held handed out %d tickets a second time", len(again))
	}
}

// A stop that lands while one page commits and the next is already claimed
// lets the committing page end and commits nothing more: the claimed page's
// claims are given back, for another replica to take at once.
func TestAStopWithAPageInFlightCommitsNoFurtherPage(t *testing.T) {
	t.Parallel()
	st := &heldPages{fakeStore: &fakeStore{backlog: 10 * 4, observed: t0 + 1}, started: make(chan int32, 16), release: make(chan struct{}), untilStop: true}
	co := started(t, Config{PageSize: 4, Cadence: time.Hour}, st, availability.New())
	<-st.started
	waitTakes(t, st.fakeStore, 3)
	if err := co.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if pages := st.pages.Load(); pages != 2 {
		t.Fatalf("%d pages committed, want 2: the page claimed beside the one in flight must not be committed after the stop", pages)
	}
	released := st.releasedIDs()
	slices.Sort(released)
	if want := []string{"trigger-3-0", "trigger-3-1", "trigger-3-2", "trigger-3-3"}; !slices.Equal(released, want) {
		t.Fatalf("released %v, want the page claimed beside the one in flight, %v (the page in flight committed)", released, want)
	}
}

// A stop that cuts a page's commit short gives back the claims of that
// page as well as of the page claimed beside it: neither was committed.
func TestAStopGivesBackTheClaimsOfTheCommitItCutShort(t *testing.T) {
	t.Parallel()
	st := &heldPages{fakeStore: &fakeStore{backlog: 10 * 4, observed: t0 + 1}, started: make(chan int32, 16), release: make(chan struct{}), untilStop: true, cutShort: true}
	co := started(t, Config{PageSize: 4, Cadence: time.Hour}, st, availability.New())
	<-st.started
	waitTakes(t, st.fakeStore, 3)
	if err := co.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	released := st.releasedIDs()
	slices.Sort(released)
	want := []string{"trigger-2-0", "trigger-2-1", "trigger-2-2", "trigger-2-3", "trigger-3-0", "trigger-3-1", "trigger-3-2", "trigger-3-3"}
	if !slices.Equal(released, want) {
		t.Fatalf("released %v, want the page whose commit the stop cut short and the page beside it, %v", released, want)
	}
}

// A stop that cuts short one commit group of a page committing on its own
// (the first of a round), after the other group committed, gives back the
// claims of the group it cut short and takes no page after it: the page
// made progress, so without the stop the next would be taken at once.
func TestAStopGivesBackTheGroupItCutShortAndTakesNoFurtherPage(t *testing.T) {
	t.Parallel()
	// Two groups of 64: the first commits, the second is held until the stop.
	st := &heldPages{fakeStore: &fakeStore{backlog: 4 * 128, observed: t0 + 1}, started: make(chan int32, 16), release: make(chan struct{}),
		untilStop: true, cutShort: true}
	co := started(t, Config{PageSize: 128, Parallel: 2, Cadence: time.Hour}, st, availability.New())
	<-st.started
	if err := co.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	st.mu.Lock()
	var committed []string
	for _, p := range st.commits {
		committed = append(committed, p.Ticket.TriggerID)
	}
	st.mu.Unlock()
	released := st.releasedIDs()
	if len(committed) != 64 || len(released) != 64 || slices.ContainsFunc(released, func(id string) bool { return slices.Contains(committed, id) }) || st.takeCount() != 1 {
		t.Fatalf("%d committed, %d released (first %v) after %d takes; want the 64 of the group the stop cut short given back, none committed, and no take after the stop",
			len(committed), len(released), released[:min(4, len(released))], st.takeCount())
	}
}

// slowTake holds every take until proceed is closed or its context ends.
type slowTake struct {
	*fakeStore
	entered chan struct{}
	proceed chan struct{}
}

func (s *slowTake) ScheduleTake(ctx context.Context, p schedule.TakeParams) ([]schedule.Ticket, error) {
	select {
	case s.entered <- struct{}{}:
	default:
	}
	select {
	case <-s.proceed:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.fakeStore.ScheduleTake(ctx, p)
}

// A stop that lands while a claim is on its way lets the claim answer
// (cut off, the database could have committed it with nobody holding its
// tickets), commits nothing of it and gives its page back.
func TestAStopLetsATakeInFlightAnswerAndGivesItsPageBack(t *testing.T) {
	t.Parallel()
	st := &slowTake{fakeStore: &fakeStore{backlog: 4, observed: t0 + 1}, entered: make(chan struct{}, 1), proceed: make(chan struct{})}
	co := started(t, Config{PageSize: 4, Cadence: time.Hour}, st, availability.New())
	<-st.entered
	stopped := make(chan error, 1)
	go func() { stopped <- co.Stop(context.Background()) }()
	time.Sleep(100 * time.Millisecond) // the stop has cancelled the round
	close(st.proceed)
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	released := st.releasedIDs()
	slices.Sort(released)
	if want := []string{"trigger-1-0", "trigger-1-1", "trigger-1-2", "trigger-1-3"}; !slices.Equal(released, want) || len(st.commits) != 0 {
		t.Fatalf("released %v with %d decisions committed; want the page the take answered after the stop, %v, and no commit", released, len(st.commits), want)
	}
}

// A take that does not answer within half the stop timeout is cut off, so
// the stop still ends within its timeout.
func TestAStopCutsOffATakeThatDoesNotAnswer(t *testing.T) {
	t.Parallel()
	const stopTimeout = 400 * time.Millisecond
	st := &slowTake{fakeStore: &fakeStore{backlog: 4, observed: t0 + 1}, entered: make(chan struct{}, 1), proceed: make(chan struct{})}
	co := started(t, Config{PageSize: 4, Cadence: time.Hour, StopTimeout: stopTimeout}, st, availability.New())
	<-st.entered
	began := time.Now()
	if err := co.Stop(context.Background()); err != nil {
		t.Fatalf("stop with a take that never answers: %v", err)
	}
	if took := time.Since(began); took < stopTimeout/2 {
		t.Fatalf("the stop returned after %s, before the take's grace of %s: the take was cut off at once", took, stopTimeout/2)
	}
}

// started is a started coordinator on st with cfg (owner replica-a), its
// log discarded, telling obs (at most one) its rounds and releases.
func started(t *testing.T, cfg Config, st schedule.Store, latch *availability.Latch, obs ...Observer) *Coordinator {
	t.Helper()
	cfg.Owner = "replica-a"
	co, err := New(cfg, st, slog.New(slog.DiscardHandler), latch)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range obs {
		co.Observe(o)
	}
	if err := co.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return co
}
