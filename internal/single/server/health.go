package server

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// listen starts the API server on the configured address, with the
// connection limits every QingLong HTTP server has, and logs the address it
// bound: with port 0 the log is the only place to learn it.
func (s *Server) listen() error {
	tlsCfg, err := httpapi.LoadTLS(s.cfg.HTTPAddr, s.cfg.TLS)
	if err != nil {
		return qlerror.Wrap(qlerror.Invalid, err, "http listener")
	}
	cfg := httpapi.Config{
		Runs: s.store, Triggers: s.store, Detail: s.store, Tokens: s.store, Pauser: s.store, Cancel: s.store.CancelRun,
		AllowedHosts: httpapi.DefaultAllowedHosts(s.cfg.HTTPAddr, s.cfg.AllowedHosts),
		Ready:        s.readiness, Log: s.cfg.Logger,
	}
	// Run-now and backfill are served where the store admits them.
	if m, ok := any(s.store).(schedule.Manual); ok {
		cfg.Manual = m
	}
	api := httpapi.NewHandler(cfg)
	srv, err := httpserve.ListenWith(s.cfg.HTTPAddr, api, httpserve.Options{TLS: tlsCfg})
	if err != nil {
		return err
	}
	s.http, s.api = srv, api
	s.cfg.Logger.Info("http listening; serving /api/v1, /livez and /readyz", "addr", srv.Addr(), "tls", tlsCfg != nil)
	return nil
}

// Addr is the HTTP address, or "" when HTTP is off.
func (s *Server) Addr() string {
	if s.http == nil {
		return ""
	}
	return s.http.Addr()
}

// APIStats are the API's authentication counters (zero when HTTP is off).
func (s *Server) APIStats() httpapi.Stats {
	if s.api == nil {
		return httpapi.Stats{}
	}
	return s.api.Stats()
}

// readiness is ready once started, until stopping, while the database
// file still answers.
func (s *Server) readiness() (bool, string) {
	if !s.ready.Load() {
		return false, "not_serving"
	}
	if s.store.Ping(context.Background()) != nil {
		return false, "database_unavailable"
	}
	return true, ""
}
