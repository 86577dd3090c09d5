package server

import (
	"encoding/json"
	"net/http"
	"sync/atomic"

	"github.com/qinglong/qinglong/internal/core/console"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// swapHandler serves the starting answers until the start hands it the
// real handler: the listeners serve from the start's first moments, the
// API and the console (which need the open database) only once it is
// open.
type swapHandler struct {
	h atomic.Pointer[http.Handler]
}

func (sw *swapHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*sw.h.Load()).ServeHTTP(w, r)
}

func (sw *swapHandler) set(h http.Handler) { sw.h.Store(&h) }

// startingHandler answers while the database is not open yet: /livez 200,
// /readyz 503 with the reason readiness gives (the step the start is at),
// a browser opening a console page 503 with a page saying to wait
// (console.StartingPage), and every other request 503 server_not_ready
// saying to retry once /readyz answers 200.
func startingHandler(readiness func() (bool, string)) http.Handler {
	step := func() string { _, reason := readiness(); return reason }
	mux := http.NewServeMux()
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, _ *http.Request) {
		startingJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		startingJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": step()})
	})
	notReady := func(w http.ResponseWriter, r *http.Request) {
		// A browser opening the console meets a page it can read, in
		// its language, that reloads itself; the API keeps its JSON.
		if console.StartingPage(w, r, step()) {
			return
		}
		w.Header().Set("Retry-After", "5")
		startingJSON(w, http.StatusServiceUnavailable, map[string]any{"error": map[string]string{
			"code": string(qlerror.Unavailable), "reason": string(httpapi.RefusalNotReady),
			"message": "the server is starting (" + step() + "); retry once /readyz answers 200",
		}})
	}
	mux.HandleFunc("/", notReady)
	// A path the mux would redirect (//livez, /x/../readyz) is answered
	// as every other path is, as the listeners do once started.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if httpserve.MuxRedirects(mux, r) {
			notReady(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// metricsStartingHandler answers a scrape before the metrics exist (they
// read the open database): 503, which Prometheus records as the target
// down, with the step in the body.
func metricsStartingHandler(readiness func() (bool, string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, reason := readiness()
		_, _ = w.Write([]byte(metrics.StateStarting + ": " + reason + "\n")) // the scraper went away; nothing to do
	})
}

func startingJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body) // the client went away; nothing to do
}

// serveWhileStarting serves the bound addresses with the starting
// answers, before the database is opened and checked: a probe meanwhile
// is answered 503 naming the step, not refused. Nothing the database
// holds is served until listen and listenMetrics hand over their
// handlers.
func (s *Server) serveWhileStarting() error {
	if s.httpLn != nil {
		tlsCfg, err := httpapi.LoadTLS(s.cfg.HTTPAddr, s.cfg.TLS)
		if err != nil {
			return qlerror.Wrap(qlerror.Invalid, err, "http listener")
		}
		s.httpSwap.set(startingHandler(s.readiness))
		srv, err := httpserve.ListenWith(s.cfg.HTTPAddr, &s.httpSwap, httpserve.Options{TLS: tlsCfg, ErrorLog: httpapi.ConnectionErrorLog(s.cfg.Logger), Listener: s.httpLn})
		if err != nil {
			return err
		}
		s.httpLn = nil // the server's now: its Shutdown closes it
		s.http, s.httpTLS = srv, tlsCfg != nil
		console := httpserve.ConsoleURL(srv.Addr(), s.cfg.HTTPAddr, s.httpTLS)
		s.cfg.Logger.Info("http listening; open the console at "+console+" (the API at /api/v1, /livez and /readyz; 503 until the start completes)",
			"code", CodeHTTPListening, "addr", srv.Addr(), "tls", s.httpTLS)
	}
	if s.metricsLn != nil {
		s.metricsSwap.set(metricsStartingHandler(s.readiness))
		srv, err := httpserve.ListenWith(s.cfg.MetricsAddr, &s.metricsSwap, httpserve.Options{Flag: "--metrics-addr", Listener: s.metricsLn})
		if err != nil {
			return err
		}
		s.metricsLn = nil // the server's now: its Shutdown closes it
		s.metricsHTTP = srv
		s.cfg.Logger.Info("metrics listening; serving "+metrics.Path+" (503 until the database is open and checked)", "code", CodeMetricsListening, "addr", srv.Addr())
		if note := metrics.ExposedNote(s.cfg.MetricsAddr); note != "" {
			s.cfg.Logger.Warn(note, "code", metrics.CodeExposed, "addr", srv.Addr())
		}
	}
	return nil
}
