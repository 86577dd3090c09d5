package httpapi

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// Diagnostic codes of the HTTP surface.
const (
	CodeInternalError = "http.internal_error"
)

// DefaultRequestTimeout bounds one API request's database reads: the longest
// a handler may take under the server's write timeout.
const DefaultRequestTimeout = httpserve.MaxHandlerTime

// DefaultAddr binds to loopback only: exposing the API is a deliberate
// choice (--http-addr), never an accident.
const DefaultAddr = "127.0.0.1:8080"

// Readiness says whether the replica admits requests and, when it does not,
// a stable reason ("starting", "draining", "database_unavailable").
type Readiness func() (ready bool, reason string)

// Config wires the handler.
type Config struct {
	Runs     run.Reader
	Triggers schedule.StatusReader
	// Detail serves one trigger with its occurrence ledger.
	Detail schedule.DetailReader
	Ready  Readiness
	Log    *slog.Logger
	// Observe sees every store error, so a lost connection a request finds
	// trips the replica's availability latch like one the scheduler finds.
	Observe func(error)
	// RequestTimeout bounds one request's database reads (zero or above
	// DefaultRequestTimeout, which the server's write timeout is sized
	// for: DefaultRequestTimeout). Running out of it is the request's own
	// failure (504, code "timeout"), never a sign the database is gone.
	RequestTimeout time.Duration
}

type api struct{ Config }

// NewHandler returns the replica's HTTP handler.
func NewHandler(cfg Config) http.Handler {
	if cfg.RequestTimeout <= 0 || cfg.RequestTimeout > DefaultRequestTimeout {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	a := &api{cfg}
	mux := http.NewServeMux()
	mux.HandleFunc("/livez", a.get(a.livez))
	mux.HandleFunc("/readyz", a.get(a.readyz))
	mux.HandleFunc("/api/v1/runs", a.get(a.admitted(a.runList)))
	mux.HandleFunc("/api/v1/runs/{id}", a.get(a.admitted(a.runGet)))
	mux.HandleFunc("/api/v1/triggers", a.get(a.admitted(a.triggerList)))
	mux.HandleFunc("/api/v1/triggers/{id}", a.get(a.admitted(a.triggerGet)))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		a.writeError(w, r, qlerror.New(qlerror.NotFound, "no such endpoint %s; see /api/v1/runs, /api/v1/runs/{id}, /api/v1/triggers, /api/v1/triggers/{id}", r.URL.Path))
	})
	return mux
}

func (a *api) get(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			a.writeError(w, r, qlerror.New(codeMethodNotAllowed, "%s %s: only GET is supported", r.Method, r.URL.Path))
			return
		}
		h(w, r)
	}
}

// admitted refuses API requests while the replica is not ready: before
// admission opens, while draining, and from a lost database until a fresh
// activation has completed.
func (a *api) admitted(h func(context.Context, *http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ok, reason := a.Ready(); !ok {
			a.writeError(w, r, qlerror.New(qlerror.Unavailable, "this replica is not admitting requests (%s); use another replica or retry later", reason))
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), a.RequestTimeout)
		defer cancel()
		body, err := h(ctx, r)
		if err != nil {
			if a.Observe != nil {
				a.Observe(err)
			}
			a.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, body)
	}
}

type probeBody struct {
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

func (a *api) livez(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, probeBody{Status: "ok"})
}

func (a *api) readyz(w http.ResponseWriter, _ *http.Request) {
	if ok, reason := a.Ready(); !ok {
		writeJSON(w, http.StatusServiceUnavailable, probeBody{Status: "unavailable", Reason: reason})
		return
	}
	writeJSON(w, http.StatusOK, probeBody{Status: "ready"})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body) // the client went away; nothing to do
}
