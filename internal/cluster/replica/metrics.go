package replica

import (
	"context"
	"log/slog"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/authlimit"
	"github.com/qinglong/qinglong/internal/core/metrics"
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
	return nil
}

// newMetrics is the replica's metrics registry, also served on the API's
// listener (behind a read token) when no listener of its own is set.
func (r *replica) newMetrics() *metrics.Metrics {
	return metrics.New(metrics.Config{
		Profile: "cluster",
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
		Readiness:    r.readiness,
		AuthFailures: r.authFailures,
	})
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
	}
	return metrics.StateDatabaseUnavailable
}

// observeSweep counts what a lease sweep found lost and retried.
func (r *replica) observeSweep(res pgstore.SweepResult) {
	if r.metrics != nil {
		r.metrics.AttemptsLost(res.Lost)
		r.metrics.AttemptsRetried(res.Retried)
	}
}
