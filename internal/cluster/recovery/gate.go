package recovery

import (
	"context"
	"log/slog"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Diagnostic codes of the gate.
const (
	CodeCandidateHeld = "recovery.candidate_held"
	CodeMoreHeld      = "recovery.more_held"
	CodeProgress      = "recovery.progress"
	CodeConverged     = "recovery.converged"
	CodeSweepBounded  = "recovery.sweep_bounded"
)

// MaxSweepPages bounds the startup sweep, so a start never waits on an
// expiry backlog: past it (or past a sweep that timed out), the replica's
// running sweep finishes the work.
const MaxSweepPages = 1000

// MaxHeldListed bounds how many held candidates a start logs one by one
// and keeps in its Report; the rest are counted. Held Runs stay until an
// operator acts, and a start must not log or hold a line per Run for ever
// more of them.
const MaxHeldListed = 100

// progressEvery is how many pages pass between progress records of a long
// scan (128 × 100 = 12,800 Runs examined).
const progressEvery = 100

// Report is the outcome of a converged gate.
type Report struct {
	// SweepPages counts the sweep's pages before the scan.
	SweepPages int
	HorizonMs  int64
	Pages      int
	Examined   int
	// HeldCount counts the candidates: reported, not executed, not
	// deleted. Held lists the first MaxHeldListed of them in Run id order.
	HeldCount int
	Held      []Candidate
}

// Gate runs startup recovery to convergence.
type Gate struct {
	Source Source
	// Sweep settles one bounded page of expired leases (released, lost,
	// retried, requeued) and reports whether the page was full, so more
	// may wait. The gate sweeps to convergence before it scans, so the
	// scan sees what the rules left. A sweep that times out (a lock held
	// elsewhere) ends the startup sweep, not the gate: the replica's
	// running sweep does the same work; any other error fails the gate.
	Sweep func(ctx context.Context) (more bool, err error)
	// PageSize is how many Runs a page examines (1–128).
	PageSize int
	Log      *slog.Logger
}

// Run pages through the source until a page says the scan is complete, and
// returns what it held. Any error aborts the gate: a replica must not start
// scheduling on a recovery it could not finish.
func (g Gate) Run(ctx context.Context) (Report, error) {
	if g.PageSize < 1 || g.PageSize > MaxPageSize {
		return Report{}, qlerror.New(qlerror.Invalid, "recovery page size %d is outside 1–%d", g.PageSize, MaxPageSize)
	}
	var rep Report
	for more := true; more; {
		if rep.SweepPages == MaxSweepPages {
			g.Log.Warn("startup sweep stopped at its page bound; the lease sweep goes on once the replica is up",
				slog.String("code", CodeSweepBounded), slog.Int("pages", rep.SweepPages))
			break
		}
		var err error
		more, err = g.Sweep(ctx)
		if qlerror.Is(err, qlerror.Timeout) {
			// A lock held elsewhere or a slow statement: the database is
			// there, and the replica's running sweep retries the same
			// pages; the scan does not depend on them.
			g.Log.Warn("startup sweep timed out; the lease sweep retries once the replica is up",
				slog.String("code", CodeSweepBounded), slog.Int("pages", rep.SweepPages))
			break
		}
		if err != nil {
			return rep, err
		}
		rep.SweepPages++
	}
	p := PageParams{Limit: g.PageSize}
	for {
		page, err := g.Source.RecoveryPage(ctx, p)
		if err != nil {
			return rep, err
		}
		if err := checkProgress(p, page); err != nil {
			return rep, err
		}
		rep.Pages++
		rep.Examined += page.Examined
		rep.HorizonMs = page.HorizonMs
		for _, c := range page.Candidates {
			rep.HeldCount++
			if rep.HeldCount > MaxHeldListed {
				continue
			}
			g.Log.Warn("recovery candidate held: a shape no rule moves on; left untouched for an operator (ql runs show, ql runs cancel)",
				slog.String("code", CodeCandidateHeld), slog.String("run_id", c.RunID), slog.String("state", string(c.State)),
				slog.String("reason", c.Reason), slog.Int64("attempt", c.AttemptNumber))
			rep.Held = append(rep.Held, c)
		}
		if page.Next == "" {
			break
		}
		if rep.Pages%progressEvery == 0 {
			g.Log.Info("startup recovery still scanning", slog.String("code", CodeProgress), slog.Int("pages", rep.Pages),
				slog.Int("examined", rep.Examined), slog.Int("held", rep.HeldCount))
		}
		p = PageParams{HorizonMs: page.HorizonMs, After: page.Next, Limit: g.PageSize}
	}
	if more := rep.HeldCount - len(rep.Held); more > 0 {
		g.Log.Warn("more recovery candidates held than listed; list them with the runs API or `ql runs list --state`",
			slog.String("code", CodeMoreHeld), slog.Int("listed", len(rep.Held)), slog.Int("more", more))
	}
	g.Log.Info("startup recovery converged", slog.String("code", CodeConverged), slog.Int64("horizon_ms", rep.HorizonMs),
		slog.Int("pages", rep.Pages), slog.Int("examined", rep.Examined), slog.Int("held", rep.HeldCount))
	return rep, nil
}

// checkProgress refuses a page that would make the gate loop for ever or
// drift its horizon: each page must move strictly forward in id order under
// the horizon the first page fixed.
func checkProgress(asked PageParams, got Page) error {
	switch {
	case got.HorizonMs <= 0:
		return qlerror.New(qlerror.Internal, "recovery source returned no database horizon")
	case asked.HorizonMs != 0 && got.HorizonMs != asked.HorizonMs:
		return qlerror.New(qlerror.Internal, "recovery source moved the horizon from %d to %d", asked.HorizonMs, got.HorizonMs)
	case got.Examined > asked.Limit:
		return qlerror.New(qlerror.Internal, "recovery source examined %d runs for a page of %d", got.Examined, asked.Limit)
	case got.Next != "" && got.Next <= asked.After:
		return qlerror.New(qlerror.Internal, "recovery source did not advance past run %s", asked.After)
	}
	return nil
}
