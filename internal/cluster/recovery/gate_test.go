package recovery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

const horizon int64 = 1_767_225_600_000

// pagedSource serves runs r000…rNNN in id order; every third is a
// candidate. It stands in for the adapter to test the gate's own paging;
// the rule of normal shapes itself is tested against PostgreSQL in internal/cluster/pgstore.
type pagedSource struct {
	runs   int
	asked  []PageParams
	failAt int // page number (1-based) that fails; 0 never
}

func (s *pagedSource) RecoveryPage(_ context.Context, p PageParams) (Page, error) {
	s.asked = append(s.asked, p)
	if len(s.asked) == s.failAt {
		return Page{}, qlerror.New(qlerror.Unavailable, "reading recovery candidates: the database is unavailable")
	}
	start := 0
	if p.After != "" {
		if _, err := fmt.Sscanf(p.After, "r%06d", &start); err != nil {
			return Page{}, fmt.Errorf("cursor %q is not one this fake handed out: %w", p.After, err)
		}
		start++
	}
	page := Page{HorizonMs: horizon}
	end := min(start+p.Limit, s.runs)
	for i := start; i < end; i++ {
		page.Examined++
		if i%3 == 0 {
			page.Candidates = append(page.Candidates, Candidate{RunID: fmt.Sprintf("r%06d", i), State: run.Dispatching, Reason: "run_unleased", AttemptNumber: 1})
		}
	}
	if end-start == p.Limit {
		page.Next = fmt.Sprintf("r%06d", end-1)
	}
	return page, nil
}

func gate(src Source, pageSize int) (Gate, *bytes.Buffer) {
	var buf bytes.Buffer
	return Gate{Source: src, Sweep: settled, PageSize: pageSize, Log: slog.New(slog.NewJSONHandler(&buf, nil))}, &buf
}

// settled is a sweep that finds nothing expired.
func settled(context.Context) (bool, error) { return false, nil }

// The gate acts on expired leases before it scans: it sweeps page after
// page while pages come back full, then scans what the rules left.
func TestGateSweepsExpiredLeasesToConvergenceBeforeItScans(t *testing.T) {
	t.Parallel()
	src := &pagedSource{runs: 10}
	g, _ := gate(src, MaxPageSize)
	var sweeps []int // how many scan pages had been asked at each sweep
	g.Sweep = func(context.Context) (bool, error) {
		sweeps = append(sweeps, len(src.asked))
		return len(sweeps) < 3, nil
	}
	rep, err := g.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(sweeps) != 3 || rep.SweepPages != 3 {
		t.Fatalf("%d sweep pages (report %d), want 3: two full pages and the one that was not", len(sweeps), rep.SweepPages)
	}
	for i, asked := range sweeps {
		if asked != 0 {
			t.Fatalf("sweep page %d ran after %d scan pages; the sweep must converge before the scan", i+1, asked)
		}
	}
	if rep.Examined != 10 {
		t.Fatalf("examined %d after the sweep, want 10", rep.Examined)
	}

	g.Sweep = func(context.Context) (bool, error) {
		return false, qlerror.New(qlerror.Unavailable, "sweeping leases: the database is unavailable")
	}
	if _, err := g.Run(context.Background()); !qlerror.Is(err, qlerror.Unavailable) {
		t.Fatalf("a sweep that lost the database gave %v; the gate must fail closed", err)
	}
}

// A sweep that times out (rows or a table locked elsewhere) does not keep
// the replica from starting: the scan runs, and the running sweep retries.
func TestGateScansAfterASweepThatTimedOut(t *testing.T) {
	t.Parallel()
	g, logs := gate(&pagedSource{runs: 5}, MaxPageSize)
	g.Sweep = func(context.Context) (bool, error) {
		return false, qlerror.New(qlerror.Timeout, "releasing expired grants: the database ended the statement")
	}
	rep, err := g.Run(context.Background())
	if err != nil || rep.Examined != 5 {
		t.Fatalf("gate after a timed-out sweep: %v, examined %d; want the scan to run", err, rep.Examined)
	}
	if !strings.Contains(logs.String(), CodeSweepBounded) {
		t.Fatalf("no %s record:\n%s", CodeSweepBounded, logs)
	}
}

// A start never waits on an endless expiry backlog: the startup sweep
// stops at its page bound and says so; the running sweep goes on.
func TestGateBoundsItsStartupSweep(t *testing.T) {
	t.Parallel()
	g, logs := gate(&pagedSource{runs: 1}, MaxPageSize)
	calls := 0
	g.Sweep = func(context.Context) (bool, error) { calls++; return true, nil }
	rep, err := g.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if calls != MaxSweepPages || rep.SweepPages != MaxSweepPages || rep.Examined != 1 {
		t.Fatalf("%d sweep pages, report %d, examined %d; want the bound %d, then the scan", calls, rep.SweepPages, rep.Examined, MaxSweepPages)
	}
	if !strings.Contains(logs.String(), CodeSweepBounded) {
		t.Fatalf("no %s record:\n%s", CodeSweepBounded, logs)
	}
}

func TestGatePagesToConvergenceUnderOneDatabaseHorizon(t *testing.T) {
	t.Parallel()
	src := &pagedSource{runs: 300}
	g, logs := gate(src, MaxPageSize)
	rep, err := g.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pages != 3 || rep.Examined != 300 || rep.HeldCount != 100 || len(rep.Held) != 100 || rep.HorizonMs != horizon {
		t.Fatalf("report pages=%d examined=%d held=%d (listed %d) horizon=%d", rep.Pages, rep.Examined, rep.HeldCount, len(rep.Held), rep.HorizonMs)
	}
	if src.asked[0].HorizonMs != 0 {
		t.Fatal("the first page must let the source sample the database clock")
	}
	for _, p := range src.asked[1:] {
		if p.HorizonMs != horizon || p.Limit != MaxPageSize {
			t.Fatalf("later page asked %+v; want the first page's horizon and the page size", p)
		}
	}
	if n := strings.Count(logs.String(), CodeCandidateHeld); n != 100 {
		t.Fatalf("%d candidates reported, want 100", n)
	}
	if !strings.Contains(logs.String(), CodeConverged) {
		t.Fatalf("no convergence record: %s", logs)
	}
}

func TestGateStopsAtAnExactlyFullLastPage(t *testing.T) {
	t.Parallel()
	src := &pagedSource{runs: 256}
	g, _ := gate(src, MaxPageSize)
	rep, err := g.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pages != 3 || rep.Examined != 256 {
		t.Fatalf("pages=%d examined=%d, want an empty third page to confirm the end", rep.Pages, rep.Examined)
	}
}

func TestGateFailsClosedWhenTheSourceFails(t *testing.T) {
	t.Parallel()
	g, logs := gate(&pagedSource{runs: 300, failAt: 2}, 100)
	_, err := g.Run(context.Background())
	if !qlerror.Is(err, qlerror.Unavailable) {
		t.Fatalf("error %v, want the source's unavailable error", err)
	}
	if strings.Contains(logs.String(), CodeConverged) {
		t.Fatal("a failed gate reported convergence")
	}
}

// scripted serves fixed pages in order and fails loudly past the script,
// so a gate that kept paging shows up as the wrong error.
type scripted struct {
	pages []Page
	calls int
}

func (s *scripted) RecoveryPage(context.Context, PageParams) (Page, error) {
	if s.calls >= len(s.pages) {
		return Page{}, errors.New("gate kept paging past the script")
	}
	s.calls++
	return s.pages[s.calls-1], nil
}

func TestGateRefusesASourceThatWouldNeverConverge(t *testing.T) {
	t.Parallel()
	for name, pages := range map[string][]Page{
		"no horizon":     {{Next: "r1", Examined: 1}},
		"same cursor":    {{HorizonMs: horizon, Next: "r5", Examined: 1}, {HorizonMs: horizon, Next: "r5", Examined: 1}},
		"cursor back":    {{HorizonMs: horizon, Next: "r5", Examined: 1}, {HorizonMs: horizon, Next: "r4", Examined: 1}},
		"horizon moved":  {{HorizonMs: horizon, Next: "r5", Examined: 1}, {HorizonMs: horizon + 1, Next: "r6", Examined: 1}},
		"oversized page": {{HorizonMs: horizon, Examined: 2}},
	} {
		g, _ := gate(&scripted{pages: pages}, 1)
		if _, err := g.Run(context.Background()); !qlerror.Is(err, qlerror.Internal) {
			t.Errorf("%s: error %v, want an internal error instead of paging on", name, err)
		}
	}
}

func TestGateRejectsPageSizesOutsideTheBound(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, -1, MaxPageSize + 1} {
		g, _ := gate(&pagedSource{}, n)
		if _, err := g.Run(context.Background()); !qlerror.Is(err, qlerror.Invalid) || !strings.Contains(err.Error(), "1–128") {
			t.Errorf("page size %d: %v", n, err)
		}
	}
}

// A start with many held Runs lists the first MaxHeldListed, counts the
// rest in one record, and reports progress while it scans.
func TestGateListsBoundedHeldCandidatesAndReportsProgress(t *testing.T) {
	t.Parallel()
	const runs = MaxPageSize*progressEvery + 1 // one page past the first progress record
	src := &pagedSource{runs: runs}
	g, logs := gate(src, MaxPageSize)
	rep, err := g.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wantHeld := (runs + 2) / 3
	if rep.HeldCount != wantHeld || len(rep.Held) != MaxHeldListed || rep.Examined != runs {
		t.Fatalf("report held=%d listed=%d examined=%d; want %d held, %d listed, %d examined", rep.HeldCount, len(rep.Held), rep.Examined, wantHeld, MaxHeldListed, runs)
	}
	out := logs.String()
	if n := strings.Count(out, CodeCandidateHeld); n != MaxHeldListed {
		t.Fatalf("%d candidates logged one by one, want %d", n, MaxHeldListed)
	}
	if n := strings.Count(out, CodeMoreHeld); n != 1 || !strings.Contains(out, fmt.Sprintf(`"more":%d`, wantHeld-MaxHeldListed)) {
		t.Fatalf("want one %s record counting %d more: %d records", CodeMoreHeld, wantHeld-MaxHeldListed, n)
	}
	if n := strings.Count(out, CodeProgress); n != 1 {
		t.Fatalf("%d progress records over %d pages, want 1", n, rep.Pages)
	}
}
