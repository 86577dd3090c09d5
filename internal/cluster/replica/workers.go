package replica

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/cluster/workeringress"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/loop"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
)

// Diagnostic codes of the worker side of a replica.
const (
	CodeWorkerListening = "serve.worker_ingress_listening"
	CodeSwept           = "serve.leases_swept"
	CodeSweepFailed     = "serve.sweep_failed"
	CodeNotifyFailed    = "serve.notify_failed"
	CodeWorkerConnError = "serve.worker_connection_error"
	// CodeNotificationsFailed: the outbox could not be claimed or a
	// delivery's result recorded.
	CodeNotificationsFailed = "serve.notifications_failed"
)

// sweepPage bounds one SweepLeases call, per kind of expiry: one short
// transaction each, however much has expired.
const sweepPage = 128

// Bounds of the sweep's cadence, a quarter of the run lease: an expired
// lease is acted on within a quarter lease of its expiry; never hotter
// than 4 per second for short leases, never later than 5 s for long ones,
// as retry backoffs and session expiry ride the same sweep.
const (
	minSweepEvery = 250 * time.Millisecond
	// maxSweepEvery is the store's: a lease no replica swept for longer
	// than it allows is recorded as lost to the replicas' outage
	// (pgstore.SweptLateAfter).
	maxSweepEvery = pgstore.MaxSweepEvery
)

// requeueMargin is added to the wait for the earliest running backoff:
// that wait is in whole milliseconds of database time, so a round set for
// it exactly could come a fraction of a millisecond early and find the
// backoff not yet passed.
const requeueMargin = 5 * time.Millisecond

// sweepEvery is the sweep's cadence for a run lease.
func sweepEvery(runLease time.Duration) time.Duration {
	return min(max(runLease/4, minSweepEvery), maxSweepEvery)
}

// sweepFull reports whether a sweep page was full of some kind, so that
// more of it may be waiting.
func sweepFull(r pgstore.SweepResult, limit int) bool {
	return max(r.Released, r.Lost, r.Retried, r.RunsLost, r.Requeued, r.SessionsExpired, r.NotedWaiting) >= limit
}

// listenWorkers binds the worker ingress's listener, before any database
// work: until the first activation completes it answers 503.
func (r *replica) listenWorkers() error {
	r.ingress = workeringress.New(workeringress.Config{
		Acquire:   r.acquireStore,
		Settings:  r.s.Worker.Settings,
		Log:       r.log,
		Observe:   r.observe,
		Completed: r.completed,
		Started:   func(s pgstore.Started) { r.runFinished(s.Finished) },
	})
	r.ingressAuth.Store(r.ingress)
	var err error
	r.workerHTTP, err = httpserve.ListenWith(r.s.Worker.Addr, r.ingress, httpserve.Options{
		Flag: "--worker-addr", TLS: r.s.Worker.TLS, WriteTimeout: workeringress.WriteTimeout,
		// Connection-level errors (a failed TLS handshake) go to the
		// replica's log, as records like every other; a worker that
		// retries one for ever is said once a minute, not at each retry.
		ErrorLog: httpserve.ConnectionErrorLog(r.log, CodeWorkerConnError),
	})
	if err != nil {
		return err
	}
	r.log.Info("worker ingress listening; answering 503 until startup completes", slog.String("code", CodeWorkerListening),
		slog.String("addr", r.workerHTTP.Addr()), slog.Bool("tls", r.s.Worker.TLS != nil))
	warnCertificateOutsideValidity(r.log, "worker ingress", "--worker-tls-cert", r.s.Worker.TLS, time.Now())
	return nil
}

// completed logs and counts what an accepted completion did: the Run it finished,
// or the next attempt it gave. A replayed completion did it already, in
// the call that was accepted first (on this replica or another), and
// counts nothing again; it still wakes the sweep for a backoff, which
// costs one early round at most.
func (r *replica) completed(c pgstore.Completed) {
	r.logFinished(c)
	if !c.Replayed {
		r.runFinished(c.Finished)
	}
	if c.RunState != string(run.RetryWait) {
		return
	}
	if r.metrics != nil && !c.Replayed {
		r.metrics.AttemptsRetried(1)
	}
	r.backoffStarted()
}

// backoffStarted wakes the live activation's sweep after a completion
// put a Run in retry_wait: its round reads the earliest backoff end, this
// one's included, and sets the next round for it. Without it the new
// backoff would be seen only at the round after the cadence (up to
// maxSweepEvery), and the retry would start that much late.
func (r *replica) backoffStarted() {
	if act := r.adm.current(); act != nil && act.loops != nil {
		act.loops.sweep.Wake()
	}
}

// acquireStore is the ingress's way to the live activation's store.
func (r *replica) acquireStore() (workeringress.Store, func(), bool) {
	if ok, _ := r.adm.ready(); !ok {
		return nil, nil, false
	}
	act := r.adm.current()
	if act == nil || !act.use.acquire() {
		return nil, nil, false
	}
	return act.rt, act.use.release, true
}

// runsQueued tells every waiting pull that Runs may be ready: the local
// ones at once, the other replicas' through a notification. It runs after
// the transactions that queued them, never inside one.
func (r *replica) runsQueued(ctx context.Context, act *activation) {
	r.ingress.Wake()
	if err := act.rt.NotifyRunsQueued(ctx); err != nil && ctx.Err() == nil {
		r.observeOn(act, err)
		r.log.Warn("could not notify the other replicas that Runs are queued; their workers find them at their next pull",
			slog.String("code", CodeNotifyFailed), slog.String("error", errorText(err)))
	}
}

// workerLoops are an activation's background work: for workers, the lease
// sweep, the notifications and the notice listener; and the
// replica's heartbeat. All use the activation's pool and are stopped
// before it closes.
type workerLoops struct {
	sweep  *loop.Loop
	notify *loop.Loop
	// beat is the replica's heartbeat, stopped with the others.
	beat       *loop.Loop
	cancel     context.CancelFunc
	listenDone chan struct{}
}

// startWorkerLoops starts the sweep (first round at once) and the
// listener of act, and writes the replica's first heartbeat before it
// returns: the activation opens admission only after.
func (r *replica) startWorkerLoops(ctx context.Context, act *activation) (*workerLoops, error) {
	var sweep *loop.Loop
	sweep, err := loop.New(loop.Config{
		Name:        "lease sweep",
		Cadence:     sweepEvery(r.s.Worker.Settings.RunLease),
		StopTimeout: r.s.Coordinator.StopTimeout,
	}, r.sweepRound(act, func(d time.Duration) { sweep.WakeWithin(d + requeueMargin) }))
	if err != nil {
		return nil, err
	}
	if err := sweep.Start(ctx); err != nil {
		return nil, err
	}
	notifications, err := r.notifyLoop(act)
	if err == nil {
		err = notifications.Start(ctx)
	}
	if err != nil {
		return nil, errors.Join(err, sweep.Stop(context.WithoutCancel(ctx)))
	}
	every := heartbeatEvery(r.s.Coordinator.Lease)
	beat, err := r.heartbeatLoop(act, every, r.firstBeat(ctx, act, every))
	if err == nil {
		err = beat.Start(ctx)
	}
	if err != nil {
		return nil, errors.Join(err, notifications.Stop(context.WithoutCancel(ctx)), sweep.Stop(context.WithoutCancel(ctx)))
	}
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w := &workerLoops{sweep: sweep, notify: notifications, beat: beat, cancel: cancel, listenDone: make(chan struct{})}
	go func() {
		defer close(w.listenDone)
		workeringress.Listen(lctx, r.listenNotices(act), r.ingress.Notified, r.log)
	}()
	return w, nil
}

// listenNotices is the listener of act's notices: runs-queued ones wake
// the pulls (wake), stop-asked ones the pull or watch of their session,
// schedules-changed ones the scheduler. Each (re)start of the listener,
// once it is subscribed, wakes the pulls and watches and the scheduler:
// a notice sent while no listener was subscribed is lost.
func (r *replica) listenNotices(act *activation) workeringress.ListenFunc {
	return func(ctx context.Context, wake func(workeringress.Notice)) error {
		return act.rt.Listen(ctx, pgstore.Notices{
			RunsQueued:       func(changed bool) { wake(workeringress.Notice{SessionChanged: changed}) },
			StopAsked:        func(session string) { wake(workeringress.Notice{StopAsked: session}) },
			SchedulesChanged: act.coord.Wake,
			Subscribed: func() {
				wake(workeringress.Notice{Relisten: true})
				act.coord.Wake()
			},
		})
	}
}

// stop ends the loops and the listener within ctx.
func (w *workerLoops) stop(ctx context.Context) error {
	w.cancel()
	err := errors.Join(w.beat.Stop(ctx), w.notify.Stop(ctx), w.sweep.Stop(ctx))
	select {
	case <-w.listenDone:
	case <-ctx.Done():
		err = errors.Join(err, errors.New("notice listener: still running at the stop timeout"))
	}
	return err
}

// notifyLoop delivers the notification outbox over act's pool. Every
// replica runs one: claims skip the rows another replica holds, so they
// share the work.
func (r *replica) notifyLoop(act *activation) (*loop.Loop, error) {
	var observe func(string)
	if r.metrics != nil {
		observe = r.metrics.NotificationDelivery
	}
	// l is set before the loop starts, and only its rounds call WakeWithin.
	var l *loop.Loop
	d := notify.NewDeliverer(notify.DeliveryConfig{
		Outbox: act.rt, Secrets: notifySecrets(r.s.Notify.Secrets), MaxAttempts: r.s.Notify.MaxAttempts, BaseBackoff: r.s.Notify.Backoff, Log: r.log,
		ConsoleURL: r.s.Notify.ConsoleURL, Version: cli.Version, Observe: observe, WakeWithin: func(wait time.Duration) { l.WakeWithin(wait) },
		RefuseLinkLocal: true, RefuseLoopback: !r.s.Notify.Loopback,
	})
	l, err := loop.New(loop.Config{
		Name:        "notifications",
		Cadence:     r.s.Coordinator.Cadence,
		StopTimeout: r.s.Coordinator.StopTimeout,
		// A round failing the same way each cadence (a full disk on the
		// database server) is said once a minute, held_back counting the
		// times it was met in between.
		OnError: loop.NewQuiet(func(err error, heldBack int) {
			attrs := []any{slog.String("code", CodeNotificationsFailed), slog.String("error", errorText(err))}
			if heldBack > 0 {
				attrs = append(attrs, slog.Int("held_back", heldBack))
			}
			r.log.Warn("notifications could not be claimed or recorded; they are retried at the next round", attrs...)
		}).Error,
	}, func(ctx context.Context) (bool, error) {
		if !act.latch.Available() {
			return false, nil
		}
		more, err := d.Round(ctx)
		// A connection lost under the outbox is lost to the whole
		// activation: its pool cannot say what the database saw last.
		r.observeOn(act, err)
		return more, err
	})
	return l, err
}

// sweepRound is one page of the lease sweep; a full page runs the next at
// once. Sweep errors go to the log and the latch, never stop the loop.
// When a retry backoff is still running, nextRequeue (when set) gets the
// wait until the earliest one ends.
func (r *replica) sweepRound(act *activation, nextRequeue func(time.Duration)) loop.Round {
	return func(ctx context.Context) (bool, error) {
		if !act.latch.Available() {
			return false, nil
		}
		// A stop arriving while a step's statement commits would cut off
		// its answer, and with it the log lines of the sessions it
		// expired: the round finishes within half the stop's bound.
		sweepCtx, cancel := loop.Outliving(ctx, r.s.Coordinator.StopTimeout/2)
		defer cancel()
		res, err := act.rt.SweepLeases(sweepCtx, sweepPage)
		// What committed before a failed step stands, and is counted.
		r.observeSweep(res)
		r.logSweptFinished(res.Ended)
		r.logExpiredSessions(ctx, res.ExpiredSessions)
		if err != nil {
			r.observeOn(act, err)
			r.log.Warn("lease sweep failed; retrying at its next round", slog.String("code", CodeSweepFailed), slog.String("error", errorText(err)))
			return false, err
		}
		if res.NextRequeue > 0 && nextRequeue != nil {
			nextRequeue(res.NextRequeue)
		}
		if res.Changed() {
			r.log.Info("lease sweep changed Runs or sessions", slog.String("code", CodeSwept), slog.Int("released", res.Released), slog.Int("lost", res.Lost),
				slog.Int("retried", res.Retried), slog.Int("runs_lost", res.RunsLost), slog.Int("requeued", res.Requeued),
				slog.Int("sessions_expired", res.SessionsExpired), slog.Int("waiting_noted", res.NotedWaiting))
		}
		if res.Released+res.Requeued > 0 {
			r.runsQueued(ctx, act)
		}
		return sweepFull(res, sweepPage), nil
	}
}

// observeOn trips act's latch when err says its database is gone.
func (r *replica) observeOn(act *activation, err error) {
	if act.latch.Observe(err) {
		r.log.Error("database connection lost; this replica stops scheduling until a fresh activation succeeds", slog.String("code", CodeUnavailable))
	}
}

// errorText is err for the log: the adapter's own sentence, never the
// driver's text.
func errorText(err error) string {
	var qe *qlerror.Error
	if errors.As(err, &qe) {
		return string(qe.Code) + ": " + qe.Msg
	}
	return string(qlerror.CodeOf(err))
}
