package server

import (
	"context"
	"net/http"
	"time"

	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/metrics"
)

// listen starts the health server on the configured address, with the
// connection limits every QingLong HTTP server has, and logs the address it
// bound: with port 0 the log is the only place to learn it.
func (s *Server) listen() error {
	srv, err := httpserve.Listen(s.cfg.HTTPAddr, s.health())
	if err != nil {
		return err
	}
	s.http = srv
	s.cfg.Logger.Info("http listening; serving /livez and /readyz", "addr", srv.Addr())
	return nil
}

// Addr is the HTTP address, or "" when HTTP is off.
func (s *Server) Addr() string {
	if s.http == nil {
		return ""
	}
	return s.http.Addr()
}

// health serves /livez (the process answers) and /readyz (started, not
// stopping, and the database file still answers).
func (s *Server) health() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !s.ready.Load() || s.store.Ping(r.Context()) != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	return mux
}

// listenMetrics serves Prometheus metrics on their own listener, bound
// before recovery and the scheduler start so the first rounds are counted.
func (s *Server) listenMetrics() error {
	s.metrics = metrics.New(metrics.Config{
		Profile:   string(s.cfg.Profile),
		Monitor:   s.store.Monitor,
		Readiness: s.readiness,
	})
	srv, err := metrics.Listen(s.cfg.MetricsAddr, s.metrics)
	if err != nil {
		return err
	}
	s.metricsHTTP = srv
	s.cfg.Logger.Info("metrics listening; serving "+metrics.Path, "addr", srv.Addr())
	return nil
}

// MetricsAddr is the metrics address, or "" when metrics are off.
func (s *Server) MetricsAddr() string {
	if s.metricsHTTP == nil {
		return ""
	}
	return s.metricsHTTP.Addr()
}

// readiness is the server's readiness state for monitoring: the same
// judgement as /readyz, with the reason.
func (s *Server) readiness() string {
	switch {
	case s.stopping.Load():
		return metrics.StateDraining
	case !s.ready.Load():
		return metrics.StateStarting
	}
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	if s.store.Ping(ctx) != nil {
		return metrics.StateDatabaseUnavailable
	}
	return metrics.StateReady
}

// pingTimeout bounds the database check of a metrics scrape.
const pingTimeout = 2 * time.Second
