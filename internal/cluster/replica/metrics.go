package replica

import (
	"context"
	"log/slog"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/authlimit"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// CodeMetricsListening is logged with the metrics listener's address.
const CodeMetricsListening = "serve.metrics_listening"

// listenMetrics serves Prometheus metrics on their own listener, bound
// before any database work like the API's: while the replica has no live
// activation, the store-read metrics are absent and readiness says why.
func (r *replica) listenMetrics() error {
	r.metrics = r.newMetrics()
	srv, err := metrics.Listen(r.s.MetricsAddr, r.metrics)
	if err != nil {
		return err
	}
	r.metricsHTTP = srv
	r.log.Info("metrics listening; serving "+metrics.Path, slog.String("code", CodeMetricsListening), slog.String("addr", srv.Addr()))
	if note := metrics.ExposedNote(r.s.MetricsAddr); note != "" {
		r.log.Warn(note, slog.String("code", metrics.CodeExposed), slog.String("addr", srv.Addr()))
	}
	return nil
}

// newMetrics is the replica's metrics registry, also served on the API's
// listener (behind a read token) when no listener of its own is set.
func (r *replica) newMetrics() *metrics.Metrics {
	m := metrics.New(metrics.Config{
		Profile: metrics.ProfileCluster,
		Version: cli.Version, Commit: cli.Commit(),
		Monitor: func(ctx context.Context, limit int) (schedule.MonitorSnapshot, error) {
			act := r.adm.current()
			if act == nil {
				return schedule.MonitorSnapshot{}, errNoActivation
			}
			return act.rt.Monitor(ctx, limit)
		},
		Workers: func(ctx context.Context) (int, int, error) {
			act := r.adm.current()
			if act == nil {
				return 0, 0, errNoActivation
			}
			c, err := act.rt.WorkerCapacity(ctx)
			return c.Sessions, c.FreeSlots, err
		},
		Unplaceable: func(ctx context.Context, limit int) (int, error) {
			act := r.adm.current()
			if act == nil {
				return 0, errNoActivation
			}
			return act.rt.UnplaceableRuns(ctx, limit)
		},
		WorkerStates: func(ctx context.Context, limit int) (map[string]int, error) {
			act := r.adm.current()
			if act == nil {
				return nil, errNoActivation
			}
			c, err := act.rt.WorkerStates(ctx, metrics.WorkerExpiredWindow, r.s.Worker.Settings.RunLease, limit)
			return map[string]int{metrics.WorkerActive: c.Active, metrics.WorkerDraining: c.Draining, metrics.WorkerExpired: c.Expired, metrics.WorkerLost: c.Lost}, err
		},
		Readiness:    r.readiness,
		AuthFailures: r.authFailures,
		PerTrigger:   r.s.MetricsPerTrigger,
		TriggerActivity: func(ctx context.Context, limit int) (schedule.TriggerActivitySnapshot, error) {
			act := r.adm.current()
			if act == nil {
				return schedule.TriggerActivitySnapshot{}, errNoActivation
			}
			return act.rt.TriggerActivity(ctx, limit)
		},
		Logger: r.log,
	})
	m.AddStorage(r.storage())
	m.AddPool(func() (metrics.PoolStat, bool) {
		act := r.adm.current()
		if act == nil {
			return metrics.PoolStat{}, false
		}
		size, inUse, idle := act.rt.PoolStat()
		return metrics.PoolStat{Max: size, InUse: inUse, Idle: idle}, true
	})
	return m
}

// authFailures are the failed authentications of the API, the console and
// the worker ingress, zero for a listener not bound yet.
func (r *replica) authFailures() map[string]authlimit.Failures {
	out := map[string]authlimit.Failures{metrics.SurfaceAPI: {}, metrics.SurfaceConsole: {}, metrics.SurfaceWorker: {}}
	if api := r.api.Load(); api != nil {
		st := api.Stats()
		out[metrics.SurfaceAPI], out[metrics.SurfaceConsole] = st.API, st.Console
	}
	if in := r.ingressAuth.Load(); in != nil {
		out[metrics.SurfaceWorker] = in.AuthStats()
	}
	return out
}

// readiness maps the replica's readiness to a monitoring state.
func (r *replica) readiness() string {
	ok, reason := r.adm.ready()
	switch {
	case ok:
		return metrics.StateReady
	case reason == ReasonStarting:
		return metrics.StateStarting
	case reason == ReasonDraining:
		return metrics.StateDraining
	case reason == ReasonHeldForWorkers:
		return metrics.StateHeldForWorkers
	}
	return metrics.StateDatabaseUnavailable
}

// observeSweep counts what a lease sweep found lost and retried, and the
// Runs it finished.
func (r *replica) observeSweep(res pgstore.SweepResult) {
	if r.metrics != nil {
		r.metrics.AttemptsLost(res.Lost)
		r.metrics.AttemptsRetried(res.Retried)
		r.metrics.RunsFinished(res.Finished)
	}
}

// runsFinished counts the Runs a store operation of this replica reported
// it finished (qinglong_runs_finished_total).
func (r *replica) runsFinished(c run.FinishCounts) {
	if r.metrics != nil {
		r.metrics.RunsFinished(c)
	}
}

// runFinished counts one Run a store operation of this replica reported
// it finished in s; "" counts nothing.
func (r *replica) runFinished(s run.State) {
	if r.metrics != nil {
		r.metrics.RunFinished(s)
	}
}

// cancelRun is the API's and the console's cancel through live, counting
// the Run when the call finished it (a cancel before it started).
func (r *replica) cancelRun(live liveReaders) func(ctx context.Context, runID, actor string) (run.Run, run.CancelEffect, error) {
	return func(ctx context.Context, runID, actor string) (run.Run, run.CancelEffect, error) {
		out, eff, err := live.CancelRun(ctx, runID, actor)
		if eff.Finished {
			r.runFinished(run.Cancelled)
		}
		return out, eff, err
	}
}
