package sqlitestore

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// duePage publishes n every-minute triggers, makes them due and returns
// their tickets' admissions.
func (e *env) duePage(t *testing.T, n int) []schedule.CommitParams {
	t.Helper()
	for i := range n {
		d := e.defs(t, fmt.Sprintf("p%03d", i), everyMinute)
		e.due(t, d.Trigger.TriggerID, 1_000)
	}
	tks := e.take(t, schedule.MaxPageSize)
	if len(tks) != n {
		t.Fatalf("took %d rows, want %d", len(tks), n)
	}
	ps := make([]schedule.CommitParams, n)
	for i, tk := range tks {
		if ps[i] = commitParams(t, tk); ps[i].Decision.Action != schedule.Admit {
			t.Fatalf("decision %s, want admit", ps[i].Decision.Action)
		}
	}
	return ps
}

// walCommits counts the commit frames in the database's WAL file: one per
// transaction since the WAL was last reset.
func (e *env) walCommits(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(e.path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	const walHeader, frameHeader = 32, 24
	if len(b) < walHeader {
		return 0
	}
	pageSize := int(binary.BigEndian.Uint32(b[8:12]))
	salt := b[16:24]
	commits := 0
	for off := walHeader; off+frameHeader+pageSize <= len(b); off += frameHeader + pageSize {
		h := b[off : off+frameHeader]
		if string(h[8:16]) != string(salt) {
			break // a frame left over from before the WAL was reset
		}
		if binary.BigEndian.Uint32(h[4:8]) != 0 {
			commits++
		}
	}
	return commits
}

// resetWAL checkpoints the WAL into the database and truncates it.
func (e *env) resetWAL(t *testing.T) {
	t.Helper()
	var busy, frames, done int
	if err := e.raw.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &frames, &done); err != nil || busy != 0 {
		t.Fatalf("checkpoint: busy %d, %v", busy, err)
	}
	if n := e.walCommits(t); n != 0 {
		t.Fatalf("%d commits left in the WAL after a truncating checkpoint", n)
	}
}

// A page of decisions pays one transaction: one commit in the WAL for the
// whole page, where the same decisions committed one by one leave one
// each.
func TestAPageOfDecisionsIsOneTransaction(t *testing.T) {
	t.Parallel()
	const n = 6
	e := newEnv(t)
	ps := e.duePage(t, n)
	e.resetWAL(t)
	for _, p := range ps[:n/2] {
		if res, err := e.commit(t, p); res.Outcome != schedule.Admitted {
			t.Fatalf("commit: %s (%s) %v", res.Outcome, res.Reason, err)
		}
	}
	if got := e.walCommits(t); got != n/2 {
		t.Fatalf("%d decisions committed one by one left %d WAL commits, want %d", n/2, got, n/2)
	}
	e.resetWAL(t)
	rs, err := e.store.ScheduleCommitPage(t.Context(), ps[n/2:])
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range rs {
		if res.Outcome != schedule.Admitted || res.RunID != ps[n/2+i].RunID {
			t.Fatalf("decision %d of the page: %s (%s)", i, res.Outcome, res.Reason)
		}
	}
	if got := e.walCommits(t); got != 1 {
		t.Fatalf("a page of %d decisions left %d WAL commits, want 1", n-n/2, got)
	}
}

// A caller that gives up in the middle of a page loses the whole page, as
// it loses a single decision: the decisions already written in the
// transaction roll back with it and, like those not reached, are reported
// cancelled. The store's clock cancels the caller when the page's write
// reads it, after every decision was verified and before the rows are
// written, so the cancellation lands mid-page every time.
func TestAPageCancelledMidwayWritesNothingAndReportsEveryDecisionCancelled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ps := e.duePage(t, 3)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var armed atomic.Bool
	var readings atomic.Int32
	s, err := Open(t.Context(), Config{Path: e.path, NowMs: func() int64 {
		if armed.Load() && readings.Add(1) == 1 {
			cancel()
		}
		return e.clock.NowMs()
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Ready(t.Context()); err != nil {
		t.Fatal(err)
	}
	armed.Store(true)
	rs, _ := s.ScheduleCommitPage(ctx, ps)
	if readings.Load() < 1 {
		t.Fatal("the page never read the clock: the cancellation never landed mid-page")
	}
	for i, res := range rs {
		requireOutcome(t, res, schedule.Failed, schedule.ReasonCancelled)
		if c := e.countsOf(t, ps[i].Ticket.TriggerID); c != (storetest.Counts{}) {
			t.Fatalf("decision %d of a cancelled page wrote %+v", i, c)
		}
	}
	// The writer is free and the rows unchanged: the same page commits.
	rs, err = s.ScheduleCommitPage(t.Context(), ps)
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range rs {
		requireOutcome(t, res, schedule.Admitted, "")
		if c := e.countsOf(t, ps[i].Ticket.TriggerID); c != (storetest.Counts{Runs: 1, Attempts: 1, Events: 2}) {
			t.Fatalf("decision %d committed again: %+v", i, c)
		}
	}
}

// Another process holding the write lock past the busy timeout: no
// decision of the page could be judged, so each is lock_not_available, the
// call returns the error, and nothing is written.
func TestAPageBehindAHeldWriteLockFailsWholeAsUnavailable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	impatient := e.impatientStore(t)
	ps := e.duePage(t, 3)
	_, release := e.holdWriteLock(t)
	rs, err := impatient.ScheduleCommitPage(t.Context(), ps)
	release()
	requireCode(t, err, qlerror.Unavailable, "page behind a held write lock")
	for i, res := range rs {
		requireOutcome(t, res, schedule.Unavailable, schedule.ReasonLockNotAvailable)
		if c := e.countsOf(t, ps[i].Ticket.TriggerID); c != (storetest.Counts{}) {
			t.Fatalf("decision %d of a blocked page wrote %+v", i, c)
		}
	}
}

// Two processes on one file take the same rows and commit them as pages
// at once: BEGIN IMMEDIATE orders the pages and the state_version CAS lets
// exactly one admission per occurrence win.
func TestTwoStoresCommittingOverlappingPagesOnOneFileAdmitEachOccurrenceOnce(t *testing.T) {
	t.Parallel()
	const n = 8
	e := newEnv(t)
	other, err := Open(t.Context(), Config{Path: e.path, NowMs: e.clock.NowMs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	e.duePage(t, n)
	stores := []*Store{e.store, other}
	pages := make([][]schedule.CommitParams, len(stores))
	for i, s := range stores {
		tks, err := s.ScheduleTake(t.Context(), schedule.TakeParams{Limit: n})
		if err != nil || len(tks) != n {
			t.Fatalf("store %d took %d rows, %v; want %d", i, len(tks), err, n)
		}
		for _, tk := range tks {
			pages[i] = append(pages[i], commitParams(t, tk))
		}
	}
	results := make([][]schedule.CommitResult, len(stores))
	var wg sync.WaitGroup
	for i, s := range stores {
		wg.Go(func() {
			var err error
			if results[i], err = s.ScheduleCommitPage(t.Context(), pages[i]); err != nil {
				t.Errorf("store %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	wins := map[string]int{}
	for i, rs := range results {
		for j, res := range rs {
			id := pages[i][j].Ticket.TriggerID
			switch {
			case res.Outcome == schedule.Admitted:
				wins[id]++
			case res.Reason != schedule.ReasonStateVersionChanged:
				t.Fatalf("store %d, trigger %s: %s (%s)", i, id, res.Outcome, res.Reason)
			}
		}
	}
	for _, p := range pages[0] {
		id := p.Ticket.TriggerID
		if wins[id] != 1 {
			t.Fatalf("trigger %s admitted %d times, want 1", id, wins[id])
		}
		if c := e.countsOf(t, id); c != (storetest.Counts{Runs: 1, Attempts: 1, Events: 2}) {
			t.Fatalf("trigger %s: %+v", id, c)
		}
	}
}

// A page that fills the file's page limit part-way (as a full disk would)
// commits the decisions that fit; each decision whose write no longer fits
// fails alone with disk_full and leaves nothing of itself.
func TestAPageThatFillsTheDiskCommitsWhatFitsAndFailsTheRestWithNothingWritten(t *testing.T) {
	t.Parallel()
	const n = 60
	e := newEnv(t)
	ps := e.duePage(t, n)
	var pages int64
	if err := e.store.writer.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	// Room for a few admissions' new pages, far fewer than the page needs.
	if _, err := e.store.writer.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages+4)); err != nil {
		t.Fatal(err)
	}
	rs, err := e.store.ScheduleCommitPage(t.Context(), ps)
	if err != nil {
		t.Fatal(err)
	}
	admitted, full := 0, 0
	for i, res := range rs {
		c := e.countsOf(t, ps[i].Ticket.TriggerID)
		switch {
		case res.Outcome == schedule.Admitted && c == (storetest.Counts{Runs: 1, Attempts: 1, Events: 2}):
			admitted++
		case res.Reason == schedule.ReasonDiskFull && c == (storetest.Counts{}):
			full++
		default:
			t.Fatalf("decision %d: %s (%s) with %+v written", i, res.Outcome, res.Reason, c)
		}
	}
	if admitted == 0 || full == 0 {
		t.Fatalf("%d admitted and %d failed on the full file; the fault never landed mid-page", admitted, full)
	}
}
