package server

import (
	"net/http"

	"github.com/qinglong/qinglong/internal/core/httpserve"
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
