package scheduler

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/availability"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/loop"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// Coordinator runs rounds for one replica.
type Coordinator struct {
	cfg   Config
	store schedule.Store
	log   *slog.Logger
	diag  schedule.Diagnostics
	latch *availability.Latch
	loop  *loop.Loop
	// admitted is told after a round that admitted Runs, once its
	// transactions are over (OnAdmitted).
	admitted func(ctx context.Context, runs int)
	// releases is told what became of the claims a stop gave back
	// (Observe); nil tells nobody.
	releases schedule.ReleaseObserver
	// now is the local wall clock, read only to turn the database instant
	// of the next due row into a local wake-up (wake.go).
	now func() time.Time
	// offsets estimates the database clock's offset from the last claims
	// (wake.go). Only the loop's goroutine uses it.
	offsets clockOffsets
	// target is the due instant the next round claims ahead of (ahead.go),
	// set by the wake planned for it; only the loop's goroutine uses it.
	target *schedule.NextDue
	// clock moves back the cursors a database clock that went back left
	// ahead (schedule.ClockWatch): at the first round, then every
	// schedule.ClockCheckEvery. Only the loop's goroutine uses it.
	clock schedule.ClockWatch
	// kept are the tickets a lost database left claimed (release.go),
	// for the replica's next activation to give back.
	keptMu sync.Mutex
	kept   []schedule.Ticket
}

// New validates cfg (after WithDefaults) and builds a stopped scheduler.
// The store must claim with cfg.Owner and cfg.Lease.
func New(cfg Config, store schedule.Store, log *slog.Logger, latch *availability.Latch) (*Coordinator, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Coordinator{cfg: cfg, store: store, log: log, diag: schedule.Diagnostics{Log: log, Owner: cfg.Owner, Repeats: schedule.NewRepeats()}, latch: latch, now: time.Now,
		clock: schedule.ClockWatch{Log: log}}
	if ps, ok := store.(poolStater); ok {
		c.diag.Extra = func() []any { return poolAttrs(ps) }
	}
	l, err := loop.New(loop.Config{
		Name:        "scheduler",
		Cadence:     cfg.Cadence,
		StopTimeout: cfg.StopTimeout,
		// A closure, not the method value: Observe may set diag's metrics
		// after New.
		OnError: func(err error) { c.roundFailed(err) },
	}, c.round)
	if err != nil {
		return nil, err
	}
	c.loop = l
	return c, nil
}

// OnAdmitted sets fn to be called after every round that admitted at
// least one Run, outside every admission transaction: it may tell workers
// that work is ready without lengthening a transaction that holds a
// schedule row's lock. Call it before Start.
func (c *Coordinator) OnAdmitted(fn func(ctx context.Context, runs int)) { c.admitted = fn }

// Observer is told every round and what became of the claims a stop gave
// back (the metrics package).
type Observer interface {
	schedule.RoundObserver
	schedule.ReleaseObserver
}

// Observe sets m to be told every round and every release. Call it before
// Start.
func (c *Coordinator) Observe(m Observer) {
	c.diag.Metrics = m
	c.releases = m
}

// Start begins rounds; the first starts at once. Idempotent while running.
func (c *Coordinator) Start(ctx context.Context) error {
	if err := c.loop.Start(ctx); err != nil {
		return err
	}
	c.log.Info("scheduler started", slog.String("code", CodeStarted), slog.String("owner", c.cfg.Owner),
		slog.Int("page_size", c.cfg.PageSize), slog.Int64("lease_ms", c.cfg.Lease.Milliseconds()),
		slog.Int64("cadence_ms", c.cfg.Cadence.Milliseconds()), slog.Int64("claim_ahead_ms", c.cfg.ClaimAhead.Milliseconds()))
	return nil
}

// Wake asks for a round as soon as the running one (if any) ends: another
// process changed the schedule rows (pgstore.SchedulesChangedChannel), and
// a new row's first occurrence may fall due before the next tick. Safe
// before Start and after Stop.
func (c *Coordinator) Wake() { c.loop.Wake() }

// Stop cancels the running round and waits at most StopTimeout for it; on
// timeout it returns an error wrapping loop.ErrDrainTimeout that names what
// was still running. Idempotent.
func (c *Coordinator) Stop(ctx context.Context) error {
	start := time.Now()
	err := c.loop.Stop(ctx)
	if err != nil {
		c.log.Error("scheduler did not drain in time", slog.String("code", CodeDrainTimedOut), slog.String("owner", c.cfg.Owner), slog.String("error", err.Error()))
		return err
	}
	c.log.Info("scheduler stopped", slog.String("code", CodeStopped), slog.String("owner", c.cfg.Owner), slog.Int64("drain_ms", time.Since(start).Milliseconds()))
	return nil
}

// Round runs one claim → decide → admit round. The loop runs rounds
// overlapped instead (see round); tests and benchmarks may call it, but
// never concurrently with a started loop.
func (c *Coordinator) Round(ctx context.Context) (schedule.Summary, error) {
	page, err := schedule.TakePage(ctx, c.store, c.roundConfig())
	if err != nil {
		return schedule.Summary{}, err
	}
	sum := page.Commit(ctx, c.store)
	c.report(ctx, sum)
	return sum, nil
}

func (c *Coordinator) roundConfig() schedule.RoundConfig {
	return schedule.RoundConfig{
		PageSize: c.cfg.PageSize,
		GraceMs:  c.cfg.Grace.Milliseconds(),
		Parallel: c.cfg.Parallel,
		NewIDs:   ids.Fill,
	}
}

// report logs a committed page, learns a lost database from its errors
// and tells OnAdmitted's function.
func (c *Coordinator) report(ctx context.Context, sum schedule.Summary) {
	c.diag.Round(ctx, sum)
	for _, e := range sum.Errors {
		c.observe(e)
	}
	if len(sum.Admitted) > 0 && c.admitted != nil {
		c.admitted(ctx, len(sum.Admitted))
	}
}

// round drains what is due, overlapping the stages: once a full page has
// made progress, each next page is claimed and decided while the one
// before it commits, so a burst drains at commit speed rather than claim +
// commit speed. At most one page is in flight, and the round waits for it
// before it returns, so a stop still waits for (and cancels) everything the
// round started, then settles the claims its last two pages may still hold
// (settle). The first page, and the page after one on which nothing
// could be committed, commit on their own; the round ends as soon as such
// a page says (Summary.StartNextAtOnce) that the next should wait for the
// cadence.
func (c *Coordinator) round(ctx context.Context) (more bool, err error) {
	var inflight chan schedule.Summary
	// flying is the page last sent to commit in flight, page the page last
	// taken (and perhaps committed on its own): the only two that can hold
	// claims when a stop lands.
	var flying, page *schedule.Page
	// collect waits for the page in flight, if any, and reports it.
	collect := func() (prev schedule.Summary, had bool) {
		if inflight == nil {
			return prev, false
		}
		prev = <-inflight
		inflight = nil
		c.report(ctx, prev)
		return prev, true
	}
	defer func() {
		collect()
		c.settle(ctx, flying, page)
	}()
	c.clock.Check(ctx, c.store)
	if err := c.claimAhead(ctx); err != nil {
		return false, err
	}
	overlap := false
	for {
		if ctx.Err() != nil {
			// Stopped while the page before committed on its own: no take
			// after the stop, and page still names that page for settle.
			return false, nil
		}
		// A replica that lost its database takes no claim from then on: its
		// owner stops this scheduler and activates a fresh one, and until it
		// has, readiness says the replica is not working.
		if !c.latch.Available() {
			return false, nil
		}
		page, err = c.take(ctx, c.roundConfig())
		prev, had := collect()
		if had {
			overlap = prev.Progress() > 0
		}
		if err != nil {
			c.observe(err)
			return false, err
		}
		if !c.latch.Available() {
			// The page in flight lost the database: this page is not
			// committed; its claims are kept for the next activation.
			return false, nil
		}
		if ctx.Err() != nil {
			// Stopped during the take, or while a page was in flight: the
			// page just taken is not committed, so no commit starts after
			// the stop; its claims are given back for another replica to
			// take at once.
			return false, nil
		}
		if !page.Full() || !overlap {
			sum := page.Commit(ctx, c.store)
			c.report(ctx, sum)
			if !sum.StartNextAtOnce(c.cfg.PageSize) {
				c.planWake(sum)
				return false, nil
			}
			overlap = true
			continue
		}
		inflight = make(chan schedule.Summary, 1)
		flying = page
		go func(p *schedule.Page, done chan<- schedule.Summary) { done <- p.Commit(ctx, c.store) }(page, inflight)
	}
}

// roundFailed logs and counts a round that failed as a whole, but for one
// that failed because the database is unavailable: observe recorded that
// already (scheduler.database_unavailable, or the replica's own record
// when another part of it found out first, the latch then tripped), and a
// scheduler.round_failed beside it would say the same twice, on one
// replica and not on another.
func (c *Coordinator) roundFailed(err error) {
	if errors.Is(err, schedule.ErrUnavailable) {
		return
	}
	c.diag.RoundFailed(err)
}

func (c *Coordinator) observe(err error) {
	if c.latch.Observe(err) {
		c.log.Error("database connection lost; this replica stops scheduling until a fresh activation succeeds",
			append([]any{slog.String("code", CodeUnavailable), slog.String("owner", c.cfg.Owner)}, schedule.ErrorAttrs(err)...)...)
	}
}
