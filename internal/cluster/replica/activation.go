package replica

import (
	"context"
	"errors"
	"fmt"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"io"
	"log/slog"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/availability"
	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/cluster/recovery"
	"github.com/qinglong/qinglong/internal/cluster/scheduler"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// Backoff between failed activations: doubling from backoffFirst up to a
// quarter of the scheduler's cadence (never above backoffMax), so that once
// the database answers again the next attempt comes soon enough for
// admissions to resume within one cadence, activation included. A failed
// attempt costs one refused connection, so the short cap is cheap.
const (
	backoffFirst = 100 * time.Millisecond
	backoffMax   = 5 * time.Second
)

// failureLogEvery is the least time between two log lines of activations
// failing in a row. The retries keep their pace (a few a second while the
// database is down); the log gets the first failure at once, then a line
// per failureLogEvery counting the attempts since, and the recovery at
// once: an outage of an hour writes hundreds of lines, not tens of
// thousands.
const failureLogEvery = 10 * time.Second

// failurePace decides which of a run of failures is logged.
type failurePace struct {
	every time.Duration
	// last is when the last logged failure was; unlogged counts the
	// failures since it that were not logged.
	last     time.Time
	unlogged int
	started  bool
}

// fail records a failure at now and reports whether to log it, with the
// number of failed attempts it stands for: itself and those not logged
// since the last line.
func (p *failurePace) fail(now time.Time) (log bool, attempts int) {
	if p.started && now.Sub(p.last) < p.every {
		p.unlogged++
		return false, 0
	}
	attempts = p.unlogged + 1
	p.started, p.last, p.unlogged = true, now, 0
	return true, attempts
}

// keptConns is how many connections a replica's pool keeps open while
// idle: one per commit group of a full page, one for the claim that
// overlaps them and one for telling the other replicas about admitted
// Runs, so a burst never opens a connection inside its rounds (an hourly
// burst would otherwise find its pool's idle connections closed).
func keptConns(c scheduler.Config) int32 {
	groups := min(c.Parallel, (c.PageSize+schedule.MinCommitGroup-1)/schedule.MinCommitGroup)
	return int32(groups) + 2 //nolint:gosec // G115: at most schedule.MaxParallel (validated settings)
}

// activation is one pass of pool → readiness → startup recovery →
// scheduler. It owns its pool and its availability latch; a lost database
// ends it, and the supervisor builds a fresh one.
type activation struct {
	rt    *pgstore.Runtime
	latch *availability.Latch
	coord *scheduler.Coordinator
	loops *workerLoops
	// use counts the worker requests in the pool, which closes after them.
	use *useGate
	// schema is what the heartbeat learnt of the migration history since
	// readiness.
	schema *schemaWatch
}

// activationError is a failed activation with the step it failed in.
type activationError struct {
	step string
	err  error
}

func (e *activationError) Error() string { return e.step + ": " + e.err.Error() }
func (e *activationError) Unwrap() error { return e.err }

// activate builds a fresh activation, logging each step, and gives back
// through it, once its database is ready, the claims carried from the
// activation lost before it (giveBackCarried). On failure it releases what it opened and returns an
// *activationError.
// Only the first attempt of a run is announced; the failures of the later
// ones are logged at failurePace's pace.
func (r *replica) activate(ctx context.Context, attempt int, carried []schedule.Ticket) (*activation, error) {
	if attempt == 1 {
		r.log.Info("activating: opening a fresh connection pool", slog.String("code", CodeActivating), slog.Int("attempt", attempt))
	}
	act := &activation{latch: availability.New(), use: newUseGate(), schema: newSchemaWatch()}
	rt, err := pgstore.OpenRuntime(ctx, r.s.DatabaseURL, pgstore.RuntimeConfig{Owner: r.s.Coordinator.Owner, Lease: r.s.Coordinator.Lease, RolePrefix: r.s.RolePrefix,
		MinConns: keptConns(r.s.Coordinator)})
	if err != nil {
		return nil, &activationError{step: "pool", err: err}
	}
	act.rt = rt
	fail := func(step string, err error) (*activation, error) {
		rt.Close()
		return nil, &activationError{step: step, err: err}
	}
	if err := rt.Ready(ctx); err != nil {
		return fail("readiness", err)
	}
	// Read, and a hold recorded, before the startup recovery, whose sweep
	// marks the sessions and leases that passed meanwhile expired.
	seen, err := rt.ClusterLastSeen(ctx)
	if err != nil {
		return fail("cluster last seen", err)
	}
	var hold heldHold
	decided, held := holdForWorkersNeeded(seen, r.s.Worker.Settings.RunLease)
	if held {
		if hold, err = r.recordHold(ctx, rt, decided, time.Now()); err != nil {
			return fail("hold for workers", err)
		}
	}
	server, err := rt.Server(ctx)
	if err != nil {
		return fail("server", err)
	}
	r.reached(server)
	// The claims carried over are given back before the startup recovery:
	// that pass reads every unfinished Run, seconds on a large queue, and
	// the rows would wait it out (up to a whole lease) for nothing, since
	// giving them back depends on none of it.
	r.giveBackCarried(ctx, rt, carried)
	gate := recovery.Gate{Source: rt, Sweep: r.sweepRound(act, nil), PageSize: recovery.MaxPageSize, Log: r.log}
	if _, err := gate.Run(ctx); err != nil {
		return fail("recovery", fmt.Errorf("startup recovery did not converge: %w", err))
	}
	if held {
		r.adm.holding.Store(rt)
		err := r.holdForWorkers(ctx, hold)
		r.adm.holding.Store(nil)
		if err != nil {
			return fail("hold for workers", err)
		}
	}
	coord, err := scheduler.New(r.s.Coordinator, rt, r.log, act.latch)
	if err != nil {
		return fail("scheduler", err)
	}
	coord.OnAdmitted(func(ctx context.Context, _ int) { r.runsQueued(ctx, act) })
	if r.metrics != nil {
		coord.Observe(r.metrics)
	}
	// The worker loops' listener wakes the scheduler on a schedules-changed
	// notice, so it is set before they start; the scheduler's first round
	// follows at once anyway.
	act.coord = coord
	if act.loops, err = r.startWorkerLoops(ctx, act); err != nil {
		return fail("worker loops", err)
	}
	if err := coord.Start(ctx); err != nil {
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.s.Coordinator.StopTimeout)
		defer cancel()
		_ = act.loops.stop(stopCtx)
		return fail("scheduler", err)
	}
	return act, nil
}

// deactivate stops the scheduler and the worker loops, waits for the
// worker requests still using the pool, and closes it, within timeout.
func (act *activation) deactivate(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return errors.Join(act.coord.Stop(ctx), act.release(ctx))
}

// release stops the worker loops, waits for the worker requests still
// using the pool and closes it, under ctx; the scheduler is stopped first.
func (act *activation) release(ctx context.Context) error {
	return errors.Join(act.loops.stop(ctx), act.use.close(ctx), closeWithin(ctx, act.rt.Close))
}

// supervise keeps the replica activated until ctx ends: it activates, opens
// admission, and when the activation loses its database it closes
// admission, stops that activation at once (no claim is taken after the
// loss) and activates afresh, backing off between failed attempts. A
// failure no retry can cure (configuration, schema, privileges) ends it
// with that error, and so does a migration history that changes under a
// live activation (checkSchema). Whatever activation is live when ctx ends is left in
// r.adm for the ordered stop.
func (r *replica) supervise(ctx context.Context) error {
	pace := failurePace{every: failureLogEvery}
	// carried are the claims the last lost activation left held, until an
	// activation has given them back.
	var carried []schedule.Ticket
	for attempt := 1; ; attempt++ {
		act, err := r.activate(ctx, attempt, carried)
		if ctx.Err() != nil {
			if act != nil {
				r.adm.open(act)
			}
			return nil
		}
		if err != nil {
			if !pgstore.Transient(err) {
				r.logFatal(err)
				return err
			}
			delay := r.backoff(attempt)
			if log, failed := pace.fail(time.Now()); log {
				r.log.Warn("activation failed; retrying", append([]any{slog.String("code", CodeActivationFailed), slog.Int("attempt", attempt),
					slog.Int("failed_since_last_line", failed), slog.Int64("retry_in_ms", delay.Milliseconds())}, failureAttrs(err)...)...)
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(delay):
			}
			continue
		}
		carried = nil
		r.adm.open(act)
		r.log.Info("replica ready: admission open", slog.String("code", CodeReady), slog.Int("attempt", attempt),
			slog.String("version", r.s.Version), slog.String("commit", r.s.Commit))
		r.offerSetupCode(ctx, act.rt)
		pace = failurePace{every: failureLogEvery}
		select {
		case <-ctx.Done():
			return nil
		case <-act.schema.changed:
			// Left in r.adm, as at a signal: the ordered stop closes
			// admission and drains what this activation started.
			return r.schemaChanged(act.schema.err)
		case <-act.latch.Lost():
		}
		r.adm.withdraw()
		if err := act.deactivate(r.s.Coordinator.StopTimeout); err != nil {
			r.log.Warn("lost activation stopped with errors", slog.String("code", CodeDeactivated), slog.String("error", err.Error()))
		} else {
			r.log.Info("lost activation stopped; activating afresh", slog.String("code", CodeDeactivated))
		}
		carried = act.coord.Held()
		attempt = 0
	}
}

// backoff is the wait after the attempt-th failed activation in a row.
func (r *replica) backoff(attempt int) time.Duration {
	limit := min(max(r.s.Coordinator.Cadence/4, backoffFirst), backoffMax)
	d := backoffFirst
	for i := 1; i < attempt && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// logFatal reports an activation failure no retry can cure.
func (r *replica) logFatal(err error) {
	var re *pgstore.ReadinessError
	if errors.As(err, &re) {
		r.log.Error("database not ready", slog.String("code", CodeNotReady), slog.String("error", readinessMessage(err)))
		return
	}
	r.log.Error("activation failed; not retrying: the configuration or the schema is wrong", append([]any{slog.String("code", CodeActivationFatal)}, failureAttrs(err)...)...)
}

// failureAttrs describe an activation failure for the low-sensitivity
// sink: the step, the stable codes, the adapter's own sentence and, for a
// connection that could not be made, its cause (pgstore.ConnectCause:
// address and reason, never the URL or password); never the driver's
// other text, which can carry SQL parameters.
func failureAttrs(err error) []any {
	var attrs []any
	var ae *activationError
	if errors.As(err, &ae) {
		attrs = append(attrs, slog.String("step", ae.step))
	}
	attrs = append(attrs, slog.String("error_code", string(qlerror.CodeOf(err))))
	if code := pgstore.DiagnosticCode(err); code != "" {
		attrs = append(attrs, slog.String("db_code", code))
	}
	var re *pgstore.ReadinessError
	var qe *qlerror.Error
	switch {
	case errors.As(err, &re):
		attrs = append(attrs, slog.String("readiness_code", re.Code), slog.String("error", readinessMessage(err)))
	case errors.As(err, &qe):
		attrs = append(attrs, slog.String("error", qe.Msg))
	}
	if cause := pgstore.ConnectCause(err); cause != "" {
		attrs = append(attrs, slog.String("cause", cause))
	}
	return attrs
}

// liveReaders serve the API through the live activation's runtime.
type liveReaders struct{ adm *admission }

var (
	_               run.Reader                  = liveReaders{}
	_               schedule.StatusPager        = liveReaders{}
	_               schedule.DetailReader       = liveReaders{}
	_               schedule.Pauser             = liveReaders{}
	_               schedule.ProjectPauser      = liveReaders{}
	_               schedule.ProjectPauseReader = liveReaders{}
	_               apitoken.Authenticator      = liveReaders{}
	errNoActivation                             = qlerror.New(qlerror.Unavailable, "this replica is re-activating its database connection; use another replica or retry later")
)

func (l liveReaders) runtime() (*pgstore.Runtime, error) {
	if act := l.adm.current(); act != nil {
		return act.rt, nil
	}
	return nil, errNoActivation
}

func (l liveReaders) RunList(ctx context.Context, p run.ListParams) ([]run.Run, string, error) {
	rt, err := l.runtime()
	if err != nil {
		return nil, "", err
	}
	return rt.RunList(ctx, p)
}

func (l liveReaders) RunsLast(ctx context.Context, triggerIDs []string) (map[string]run.Last, error) {
	rt, err := l.runtime()
	if err != nil {
		return nil, err
	}
	return rt.RunsLast(ctx, triggerIDs)
}

func (l liveReaders) RunGet(ctx context.Context, id string) (run.Detail, error) {
	rt, err := l.runtime()
	if err != nil {
		return run.Detail{}, err
	}
	return rt.RunGet(ctx, id)
}

func (l liveReaders) TriggerDetail(ctx context.Context, triggerID string, ledgerLimit int) (schedule.TriggerDetail, error) {
	rt, err := l.runtime()
	if err != nil {
		return schedule.TriggerDetail{}, err
	}
	return rt.TriggerDetail(ctx, triggerID, ledgerLimit)
}

func (l liveReaders) TriggerList(ctx context.Context, p schedule.TriggerListParams) ([]schedule.TriggerStatus, string, error) {
	rt, err := l.runtime()
	if err != nil {
		return nil, "", err
	}
	return rt.TriggerList(ctx, p)
}

func (l liveReaders) TriggerCount(ctx context.Context, p schedule.TriggerListParams) (int, error) {
	rt, err := l.runtime()
	if err != nil {
		return 0, err
	}
	return rt.TriggerCount(ctx, p)
}

func (l liveReaders) TriggerSnapshot(ctx context.Context, fn func(schedule.StatusCounter) error) error {
	rt, err := l.runtime()
	if err != nil {
		return err
	}
	return rt.TriggerSnapshot(ctx, fn)
}

// tokenRuntime is the live activation's runtime or, while an activation
// waits out its hold for workers, that one's: a token is checked during a
// hold, so a scrape of /metrics on the API listener reads held_for_workers
// instead of failing (and Prometheus taking the replica for down). Every
// other request still finds no activation: nothing is read, admitted or
// granted through a held one.
func (l liveReaders) tokenRuntime() (*pgstore.Runtime, error) {
	if act := l.adm.current(); act != nil {
		return act.rt, nil
	}
	if rt := l.adm.holding.Load(); rt != nil {
		return rt, nil
	}
	return nil, errNoActivation
}

func (l liveReaders) TokenByDigest(ctx context.Context, digest []byte) (apitoken.Token, error) {
	rt, err := l.tokenRuntime()
	if err != nil {
		return apitoken.Token{}, err
	}
	return rt.TokenByDigest(ctx, digest)
}

func (l liveReaders) TokenTouch(ctx context.Context, id string, atMs int64) error {
	rt, err := l.tokenRuntime()
	if err != nil {
		return err
	}
	return rt.TokenTouch(ctx, id, atMs)
}

// CancelRun cancels a Run through the live activation (the runtime role
// may: `ql runs cancel` uses it too) and says what this call did.
func (l liveReaders) CancelRun(ctx context.Context, runID, actor string) (run.Run, run.CancelEffect, error) {
	rt, err := l.runtime()
	if err != nil {
		return run.Run{}, run.CancelEffect{}, err
	}
	return rt.CancelRun(ctx, runID, actor)
}

// TriggerPause pauses or resumes a trigger through the live activation
// (the runtime role may, and writes the audit record).
func (l liveReaders) TriggerPause(ctx context.Context, r schedule.PauseRequest) (schedule.PauseResult, error) {
	rt, err := l.runtime()
	if err != nil {
		return schedule.PauseResult{}, err
	}
	return rt.TriggerPause(ctx, r)
}

// ProjectPause pauses or resumes a project through the live activation
// (the runtime role may, as it may pause a trigger).
func (l liveReaders) ProjectPause(ctx context.Context, r schedule.ProjectPauseRequest) (schedule.ProjectPauseResult, error) {
	rt, err := l.runtime()
	if err != nil {
		return schedule.ProjectPauseResult{}, err
	}
	return rt.ProjectPause(ctx, r)
}

func (l liveReaders) ProjectPauseRead(ctx context.Context, project string) (schedule.ProjectPauseState, error) {
	rt, err := l.runtime()
	if err != nil {
		return schedule.ProjectPauseState{}, err
	}
	return rt.ProjectPauseRead(ctx, project)
}

// ReadAttemptLogUpTo reads at most max bytes of an attempt's output
// through the live activation, for the API's log route and the console's
// live log.
func (l liveReaders) ReadAttemptLogUpTo(ctx context.Context, attemptID string, offset, max int64, w io.Writer) (int64, bool, error) {
	rt, err := l.runtime()
	if err != nil {
		return offset, false, err
	}
	return rt.ReadAttemptLogUpTo(ctx, attemptID, offset, max, w)
}

// liveManual is manual admission through the live activation, for a
// runtime store that implements it.
type liveManual struct{ live liveReaders }

func (l liveManual) manual() (schedule.Manual, error) {
	rt, err := l.live.runtime()
	if err != nil {
		return nil, err
	}
	m, ok := any(rt).(schedule.Manual)
	if !ok {
		return nil, qlerror.New(qlerror.FailedPrecondition, "this replica's store cannot run triggers now or backfill them")
	}
	return m, nil
}

func (l liveManual) TriggerRunNow(ctx context.Context, r schedule.RunNowRequest) (schedule.RunNowResult, error) {
	m, err := l.manual()
	if err != nil {
		return schedule.RunNowResult{}, err
	}
	return m.TriggerRunNow(ctx, r)
}

func (l liveManual) TriggerBackfill(ctx context.Context, r schedule.BackfillRequest) (schedule.BackfillResult, error) {
	m, err := l.manual()
	if err != nil {
		return schedule.BackfillResult{}, err
	}
	return m.TriggerBackfill(ctx, r)
}

func (l liveManual) RunRerun(ctx context.Context, r schedule.RerunRequest) (schedule.RerunResult, error) {
	m, err := l.manual()
	if err != nil {
		return schedule.RerunResult{}, err
	}
	return m.RunRerun(ctx, r)
}
