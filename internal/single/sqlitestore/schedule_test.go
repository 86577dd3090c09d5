package sqlitestore

import (
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// The take must touch O(page) rows: both branches read the partial due
// index in claim order, so neither scans the table nor sorts.
func TestTakeReadsTheDueIndexInClaimOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, q := range []string{qScheduleTakeUninitialised, qScheduleTakeDue} {
		plan := e.queryPlan(t, q, 1, 2, 3)
		joined := strings.Join(plan, "\n")
		if !strings.HasPrefix(plan[0], "SEARCH s USING INDEX trigger_schedules_due") || strings.Contains(joined, "TEMP B-TREE") || strings.Contains(joined, "SCAN") {
			t.Fatalf("take plan reads more than one page:\n%s", joined)
		}
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
		case r.Outcome == schedule.Raced && r.Reason == schedule.ReasonStateVersionChanged:
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

// Another process holding the write lock past the busy timeout makes the
// commit fail as unavailable with nothing written — it is not a race.
func TestCommitBehindAHeldWriteLockFailsAsUnavailable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	impatient := e.impatientStore(t)
	d := e.defs(t, "alpha", everyMinute)
	e.due(t, d.Trigger.TriggerID, 1_000)
	tk := e.takeOne(t)
	_, release := e.holdWriteLock(t)
	res, err := impatient.ScheduleCommit(t.Context(), commitParams(t, tk))
	release()
	requireOutcome(t, res, schedule.Unavailable, schedule.ReasonLockNotAvailable)
	requireCode(t, err, qlerror.Unavailable, "commit behind a held write lock")
	if n := e.countsOf(t, d.Trigger.TriggerID); n != (storetest.Counts{}) {
		t.Fatalf("blocked commit wrote %+v", n)
	}
}

// A round whose page meets another process's write lock counts every
// decision unavailable with the reason lock_not_available, as the metrics
// and the alert on them read it: never failed without a reason.
func TestARoundBehindAHeldWriteLockIsCountedUnavailableAsLockNotAvailable(t *testing.T) {
	t.Parallel()
	const n = 3
	e := newEnv(t)
	impatient := e.impatientStore(t)
	for i := range n {
		e.due(t, e.defs(t, "p"+string(rune('a'+i)), everyMinute).Trigger.TriggerID, 1_000)
	}
	_, release := e.holdWriteLock(t)
	sum, err := schedule.Round(t.Context(), impatient, schedule.RoundConfig{PageSize: 8, GraceMs: testGraceMs, Parallel: 1, NewIDs: ids.Fill})
	release()
	if err != nil {
		t.Fatalf("the take failed: %v", err)
	}
	if sum.Counts[schedule.Unavailable] != n || sum.Counts[schedule.Failed] != 0 {
		t.Fatalf("counted %v, want %d unavailable and none failed", sum.Counts, n)
	}
	if want := map[schedule.Reason]int{schedule.ReasonLockNotAvailable: n}; !maps.Equal(sum.Reasons, want) {
		t.Fatalf("reasons %v, want %v", sum.Reasons, want)
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
	cfg := schedule.RoundConfig{PageSize: 8, GraceMs: testGraceMs, Parallel: 4, NewIDs: ids.Fill}
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
