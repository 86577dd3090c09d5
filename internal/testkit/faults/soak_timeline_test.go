package faults

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// The soak's gap bound is the chain a fault can cost one row (soakGapBound);
// its parts that depend on how fast the machine runs the rounds are
// measured, and a gap beyond it is explained by the soak's own record of
// what it did and saw (soakEvent, strandedClaim, soakRound).

// soakEvent is a fault the soak injected, or a change of a replica's
// readiness it saw, at a database time.
type soakEvent struct {
	AtMs int64
	What string
}

// strandedClaim is a claim a replica held when it was SIGKILLed, read from
// the database once the process was dead: nothing can commit it any more,
// so its row waits for its expiry.
type strandedClaim struct {
	TriggerID, Owner string
	// KilledAtMs is the SIGKILL's time; AcquiredMs, ExpiresMs and DueMs
	// the claim's acquisition, its expiry and its row's due time.
	KilledAtMs, AcquiredMs, ExpiresMs, DueMs int64
}

// soakRound is one scheduling round a replica logged
// (schedule.CodeRound): rounds that took no row are not logged, and took
// no claim.
type soakRound struct {
	Owner string
	// ClaimMs is the database time of its claim (first_acquired_ms).
	ClaimMs  int64
	Duration time.Duration
	Taken    int
	Admitted int
}

// period is the index of the trigger period its claim fell in: every soak
// trigger is due once a period, on the period's grid.
func (r soakRound) period() int64 { return r.ClaimMs / soakPeriod.Milliseconds() }

// readSoakRounds reads the rounds every replica process logged in dir.
func readSoakRounds(t testing.TB, dir string) []soakRound {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		t.Fatal(err)
	}
	var rounds []soakRound
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var rec struct {
				Code       string `json:"code"`
				Owner      string `json:"owner"`
				ClaimMs    *int64 `json:"first_acquired_ms"`
				DurationMs int64  `json:"duration_ms"`
				Taken      int    `json:"taken"`
				Admitted   int    `json:"admitted"`
			}
			// A process killed mid-line leaves a line that is no record.
			if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Code != schedule.CodeRound || rec.ClaimMs == nil {
				continue
			}
			rounds = append(rounds, soakRound{Owner: rec.Owner, ClaimMs: *rec.ClaimMs,
				Duration: time.Duration(rec.DurationMs) * time.Millisecond, Taken: rec.Taken, Admitted: rec.Admitted})
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			t.Fatalf("reading %s: %v", name, err)
		}
	}
	return rounds
}

// soakLatency is how slowly the machine ran the rounds during the fault
// window.
type soakLatency struct {
	// ClaimLag is the longest from a due instant to the first claim
	// after it (a logged round's, or a claim a kill stranded, whose round
	// never logged), and from a stranded claim's due time to that claim.
	// Only the first claim of a period counts: a later one was woken by
	// claims given back, or by a replica's start, at any moment of it.
	ClaimLag time.Duration
	// Longest is the longest round, from its start to its last commit.
	Longest time.Duration
	// Rounds is how many rounds were measured; Slowest the longest.
	Rounds  int
	Slowest soakRound
}

func measureSoakLatency(rounds []soakRound, stranded []strandedClaim, fromMs, toMs int64) soakLatency {
	var l soakLatency
	periodMs := soakPeriod.Milliseconds()
	first := map[int64]int64{}
	claimed := func(atMs int64) {
		if p := atMs / periodMs; first[p] == 0 || atMs < first[p] {
			first[p] = atMs
		}
	}
	for _, r := range rounds {
		if r.ClaimMs < fromMs || r.ClaimMs > toMs {
			continue
		}
		l.Rounds++
		claimed(r.ClaimMs)
		if r.Duration > l.Longest {
			l.Longest, l.Slowest = r.Duration, r
		}
	}
	for _, c := range stranded {
		if c.AcquiredMs < fromMs || c.AcquiredMs > toMs {
			continue
		}
		claimed(c.AcquiredMs)
		l.ClaimLag = max(l.ClaimLag, time.Duration(c.AcquiredMs-c.DueMs)*time.Millisecond)
	}
	for p, at := range first {
		l.ClaimLag = max(l.ClaimLag, time.Duration(at-p*periodMs)*time.Millisecond)
	}
	return l
}

// soakGapBound is the longest a trigger may go without an admission, the
// worst a fault step can cost one row: the row falls due one period after
// its previous admission; a round claims it, up to the claim lag later,
// and its replica dies holding the claim; the claim expires a lease after
// it was taken, in database time; a round claims in the first period that
// starts after the expiry (the replica that admitted the last period wakes
// at its due instant, the others within a cadence, the soak's period) and
// takes the row over, up to the claim lag into that period, and admits it
// within the longest round. A backend termination costs less: its replica
// gives its claims back once re-activated, or they expire as a killed
// replica's do. Only while no replica is ready can no round take the row
// over, so that time is added. A claim never taken over, or taken over a
// lease late, exceeds it.
func soakGapBound(l soakLatency, noneReady time.Duration) time.Duration {
	return soakPeriod + l.ClaimLag + soakLease + soakCadence + l.ClaimLag + l.Longest + noneReady
}

// describeSoakBound spells the bound out part by part.
func describeSoakBound(l soakLatency, noneReady time.Duration) string {
	return fmt.Sprintf("%v = period %v + claim lag %v + lease %v + cadence %v + claim lag %v + longest round %v + time with no ready replica %v (%d rounds measured)",
		soakGapBound(l, noneReady), soakPeriod, l.ClaimLag, soakLease, soakCadence, l.ClaimLag, l.Longest, noneReady, l.Rounds)
}

// explainSoakGap is what the soak knows about a gap: the faults and
// readiness changes from a fault step before it to its end, what became of
// the trigger's claim, and the rounds that claimed during it.
func explainSoakGap(g gap, events []soakEvent, stranded []strandedClaim, rounds []soakRound) string {
	var b strings.Builder
	fromMs := g.FromMs - soakFaultStep.Milliseconds()
	fmt.Fprintf(&b, "faults and readiness from %s (a fault step before the gap) to its end:\n", fmtMs(fromMs))
	for _, e := range events {
		if e.AtMs >= fromMs && e.AtMs <= g.ToMs {
			fmt.Fprintf(&b, "  %s %s\n", fmtMs(e.AtMs), e.What)
		}
	}
	found := false
	for _, c := range stranded {
		if c.TriggerID != g.TriggerID || c.KilledAtMs < fromMs || c.KilledAtMs > g.ToMs {
			continue
		}
		found = true
		fmt.Fprintf(&b, "its claim was stranded by the SIGKILL of %s at %s: acquired %s (%d ms after its due time %s), expiring %s; admitted %d ms after that expiry\n",
			c.Owner, fmtMs(c.KilledAtMs), fmtMs(c.AcquiredMs), c.AcquiredMs-c.DueMs, fmtMs(c.DueMs), fmtMs(c.ExpiresMs), g.ToMs-c.ExpiresMs)
	}
	if !found {
		b.WriteString("no SIGKILL in that time stranded a claim of this trigger\n")
	}
	var during []soakRound
	for _, r := range rounds {
		if r.ClaimMs >= g.FromMs && r.ClaimMs <= g.ToMs {
			during = append(during, r)
		}
	}
	slices.SortFunc(during, func(a, b soakRound) int { return cmp.Compare(b.Duration, a.Duration) })
	fmt.Fprintf(&b, "%d rounds claimed during the gap; the longest:\n", len(during))
	for _, r := range during[:min(len(during), 5)] {
		fmt.Fprintf(&b, "  %s claimed at %s, %d ms into its period, and ran %v (took %d rows, admitted %d)\n",
			r.Owner, fmtMs(r.ClaimMs), r.ClaimMs-r.period()*soakPeriod.Milliseconds(), r.Duration, r.Taken, r.Admitted)
	}
	return b.String()
}

func TestTheSoakGapBoundMeasuresTheRoundsInTheWindowAndTheStrandedClaims(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lines := []string{
		`{"level":"INFO","code":"serve.ready","replica":"soak-0"}`,
		// Claimed 40 ms after its instant, ended 240 ms after it.
		`{"level":"INFO","code":"scheduler.round","owner":"soak-0","taken":200,"duration_ms":200,"admitted":200,"first_acquired_ms":10040}`,
		// Claimed 300 ms after its instant, ended 450 ms after it.
		`{"level":"INFO","code":"scheduler.round","owner":"soak-0","taken":50,"duration_ms":150,"admitted":50,"first_acquired_ms":11300}`,
		// Before the window: not measured.
		`{"level":"INFO","code":"scheduler.round","owner":"soak-0","taken":200,"duration_ms":5000,"admitted":200,"first_acquired_ms":9900}`,
		`{"level":"INFO","code":"scheduler.round","owner":"soak-0","taken"`,
	}
	if err := os.WriteFile(filepath.Join(dir, "soak-0.1.log"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	late := `{"level":"INFO","code":"scheduler.round","owner":"soak-1","taken":20,"duration_ms":900,"admitted":20,"first_acquired_ms":12100}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "soak-1.1.log"), []byte(late), 0o600); err != nil {
		t.Fatal(err)
	}
	rounds := readSoakRounds(t, dir)
	if len(rounds) != 4 {
		t.Fatalf("read %d rounds, want the 4 complete round records: %+v", len(rounds), rounds)
	}
	l := measureSoakLatency(rounds, nil, 10_000, 20_000)
	want := soakLatency{ClaimLag: 300 * time.Millisecond, Longest: 900 * time.Millisecond, Rounds: 3,
		Slowest: soakRound{Owner: "soak-1", ClaimMs: 12_100, Duration: 900 * time.Millisecond, Taken: 20, Admitted: 20}}
	if l != want {
		t.Fatalf("latency %+v, want %+v", l, want)
	}
	if got, bound := soakGapBound(l, 0), soakPeriod+300*time.Millisecond+soakLease+soakCadence+300*time.Millisecond+900*time.Millisecond; got != bound {
		t.Fatalf("bound %v, want %v", got, bound)
	}
	// The first claim of the period of 13 s was stranded 40 ms into it (its
	// round died with its replica), so the round logged 850 ms into it,
	// woken by claims given back, is no first claim; the stranded claim of
	// another row, due a period before, was taken 740 ms after its due time.
	stranded := []strandedClaim{
		{TriggerID: "t1", Owner: "soak-2", KilledAtMs: 13_750, AcquiredMs: 13_040, ExpiresMs: 16_040, DueMs: 13_000},
		{TriggerID: "t2", Owner: "soak-2", KilledAtMs: 13_750, AcquiredMs: 13_040, ExpiresMs: 16_040, DueMs: 12_300},
	}
	given := soakRound{Owner: "soak-0", ClaimMs: 13_850, Duration: 100 * time.Millisecond, Taken: 30, Admitted: 30}
	l = measureSoakLatency(append(rounds, given), stranded[:1], 10_000, 20_000)
	if l.ClaimLag != 300*time.Millisecond {
		t.Fatalf("claim lag %v, want 300ms: only the first claim of a period counts", l.ClaimLag)
	}
	l = measureSoakLatency(append(rounds, given), stranded, 10_000, 20_000)
	if l.ClaimLag != 740*time.Millisecond {
		t.Fatalf("claim lag %v, want the stranded claim's 740ms after its due time", l.ClaimLag)
	}
	if got := soakGapBound(l, 2*time.Second) - soakGapBound(l, 0); got != 2*time.Second {
		t.Fatalf("time with no ready replica added %v to the bound, want 2s", got)
	}
}

func TestAnExplainedSoakGapNamesTheStrandingKillAndTheFaultsBeforeIt(t *testing.T) {
	t.Parallel()
	g := gap{TriggerID: "t1", FromMs: 100_000, ToMs: 105_200}
	events := []soakEvent{
		{AtMs: 100_000 - soakFaultStep.Milliseconds() - 1, What: "too early"},
		{AtMs: 101_040, What: "pg_terminate_backend 7 of soak-1"},
		{AtMs: 101_050, What: "SIGKILL soak-2 (process 3)"},
		{AtMs: 103_000, What: "soak-2 (process 4) ready"},
		{AtMs: 105_201, What: "too late"},
	}
	stranded := []strandedClaim{
		{TriggerID: "t1", Owner: "soak-2", KilledAtMs: 101_050, AcquiredMs: 101_020, ExpiresMs: 104_020, DueMs: 101_000},
		{TriggerID: "t2", Owner: "soak-2", KilledAtMs: 101_050, AcquiredMs: 101_020, ExpiresMs: 104_020, DueMs: 101_000},
	}
	rounds := []soakRound{
		{Owner: "soak-0", ClaimMs: 105_010, Duration: 190 * time.Millisecond, Taken: 200, Admitted: 200},
		{Owner: "soak-1", ClaimMs: 99_010, Duration: 3 * time.Second, Taken: 200, Admitted: 200},
	}
	got := explainSoakGap(g, events, stranded, rounds)
	for _, want := range []string{
		"pg_terminate_backend 7 of soak-1", "SIGKILL soak-2 (process 3)", "soak-2 (process 4) ready",
		"stranded by the SIGKILL of soak-2 at " + fmtMs(101_050) + ": acquired " + fmtMs(101_020) + " (20 ms after its due time",
		"expiring " + fmtMs(104_020) + "; admitted 1180 ms after that expiry",
		"1 rounds claimed during the gap", "soak-0 claimed at " + fmtMs(105_010) + ", 10 ms into its period, and ran 190ms (took 200 rows, admitted 200)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the explanation lacks %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"too early", "too late", "soak-1 claimed", "t2"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("the explanation holds %q, from outside the gap or of another trigger:\n%s", unwanted, got)
		}
	}
	if got := explainSoakGap(gap{TriggerID: "t3", FromMs: 100_000, ToMs: 105_200}, events, stranded, rounds); !strings.Contains(got, "no SIGKILL in that time stranded a claim of this trigger") {
		t.Errorf("a gap no kill explains does not say so:\n%s", got)
	}
}
