package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/authlimit"
	"github.com/qinglong/qinglong/internal/core/authlog"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/cmdname"
	"github.com/qinglong/qinglong/internal/core/databackup"
	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// Diagnostic codes of the HTTP surface.
const (
	CodeInternalError = "http.internal_error"
	// CodeRequestOutOfTime: a request ran out of its time limit
	// (httpserve.NoteOutOfTime).
	CodeRequestOutOfTime = "http.request_out_of_time"
	// CodeConnectionError is a connection the listener dropped on its
	// own, before any request: a failed TLS handshake (a port scanner, a
	// load balancer's TCP check, plain HTTP sent to HTTPS).
	CodeConnectionError = "http.connection_error"
)

// ConnectionErrorLog is the API listener's error log: its
// connection-level errors become warnings of l, in l's format, under
// CodeConnectionError, a repeat from one host at most once a minute
// (httpserve.ConnectionErrorLog). Without it Go writes them to stderr as
// bare lines a log shipper cannot parse.
func ConnectionErrorLog(l *slog.Logger) *log.Logger {
	return httpserve.ConnectionErrorLog(l, CodeConnectionError)
}

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
	// LastRuns reads the newest Run of each trigger GET /api/v1/triggers
	// lists; nil: the list carries none.
	LastRuns run.LastReader
	// Detail serves one trigger with its occurrence ledger.
	Detail schedule.DetailReader
	// Tokens authenticates every request but the probes'.
	Tokens apitoken.Authenticator
	// Uses records the tokens' last use; the console's should be the same
	// (default: one of the API's own).
	Uses *apitoken.Uses
	// Pauser pauses and resumes triggers; nil where the server's
	// database role may not (the cluster's runtime role).
	Pauser schedule.Pauser
	// ProjectPauser pauses and resumes whole projects; nil where the
	// server cannot.
	ProjectPauser schedule.ProjectPauser
	// ProjectDeleter deletes archived projects (DELETE
	// /api/v1/projects/{name}); nil where the server cannot (a replica,
	// whose role may not delete Runs).
	ProjectDeleter project.Deleter
	// ProjectPauses reads a project's pause state for the project read
	// (GET /api/v1/projects/{name}); nil where the server cannot, which
	// then leaves the pause out of the answer.
	ProjectPauses schedule.ProjectPauseReader
	// Cancel cancels a Run, recording actor (who, from where) in its
	// event, and says what this call did to it; nil where the server
	// cannot.
	Cancel func(ctx context.Context, runID, actor string) (run.Run, run.CancelEffect, error)
	// ReadLog copies at most max bytes of an attempt's captured output
	// from offset on to w and returns the offset after them and whether
	// the log was cut at its size cap (GET /api/v1/runs/{id}/log); nil
	// where the server cannot read logs.
	ReadLog func(ctx context.Context, attemptID string, offset, max int64, w io.Writer) (next int64, truncated bool, err error)
	// Manual runs a trigger now and backfills it; nil where the store
	// does not implement it.
	Manual schedule.Manual
	// Notifications lists the notification outbox and retries dead
	// notifications; nil where the server cannot.
	Notifications notify.Manager
	// TryChannel sends one test message of a project to its channel and
	// waits for the outcome (POST
	// /api/v1/projects/{project}/notifications/channels/{name}/test); nil
	// where the server cannot.
	TryChannel func(ctx context.Context, projectID, project string, c notify.Channel) notify.Trial
	// ChannelTests records in the audit trail who tested which channel,
	// and how it went, once the test message went; nil records nothing.
	ChannelTests audit.Appender
	// Audit lists the audit trail (GET /api/v1/audit); nil where the
	// server cannot.
	Audit audit.Reader
	// NotificationProjects places a notification in its project, so that
	// a token bound to projects retries its projects' only; nil refuses
	// such a token every retry.
	NotificationProjects notify.Placer
	// Enabler enables and disables triggers (a new revision each); nil
	// where the server's database role may not publish (the cluster's
	// runtime role).
	Enabler catalog.TriggerEnabler
	// Definitions publishes definitions files (POST /api/v1/apply); nil
	// where the server's database role may not publish (a cluster
	// replica's runtime role).
	Definitions *catalog.Service
	// DryRuns answers an apply's dry run (POST /api/v1/apply?dryRun=true)
	// where Definitions is nil: a cluster replica's runtime role reads
	// what a dry run reads, though it may not publish. nil where
	// Definitions answers dry runs too, or where none is answered.
	DryRuns *DryRuns
	// Export reads a project's definitions whole (GET
	// /api/v1/projects/{name}/definitions); every role that serves the
	// API may.
	Export catalog.DefinitionsReader
	// MissingSecrets names the secrets of a list the secrets file of the
	// machine that runs the commands does not define, read as the user
	// that runs them; nil where that is not this server (a cluster's
	// workers hold their own), and an apply's answer then notes nothing
	// of secrets.
	MissingSecrets func(refs []string) ([]string, error)
	// Secrets is the secrets file the commands this server runs read
	// (GET, PUT and DELETE /api/v1/secrets); nil where the machines that
	// run them hold their own (a cluster's workers), and the routes refuse.
	Secrets *process.Secrets
	// Dependencies lists, adds and removes the packages the commands
	// need on this machine (/api/v1/dependencies); nil where the machines
	// that run them install their own (a cluster's workers), and the
	// routes refuse.
	Dependencies deps.Manager
	// DependencyKeys keeps the Idempotency-Keys of Dependencies' changes
	// in the database; required with Dependencies.
	DependencyKeys deps.Keys
	// Backup makes the backup archives of the data directory (GET
	// /api/v1/backup); nil where the database is not the server's file
	// (a cluster replica's is PostgreSQL's), which refuses the route.
	Backup databackup.Source
	// BackupRecord records in the audit trail who downloaded a backup;
	// nil records nothing.
	BackupRecord audit.Appender
	// SecretsRecord records in the audit trail who set or deleted a
	// secret of Secrets, once the file's change succeeded; nil records
	// nothing.
	SecretsRecord audit.Appender
	// Metrics serves GET /metrics on this listener, behind a read token;
	// nil where metrics are off or have a listener of their own.
	Metrics http.Handler
	// AllowedHosts are the host names (no port) the Host header may
	// carry on an API route; DefaultAllowedHosts gives the usual ones.
	AllowedHosts []string
	// TrustedProxies are the reverse proxies (ParseTrustedProxies) whose
	// X-Forwarded-For names the client every limit, throttle and audit
	// record keys on; none by default, when the peer is the client.
	TrustedProxies []netip.Prefix
	// Limits bound each client (zero fields take DefaultLimits').
	Limits Limits
	// NowMs is the clock token expiry and last use are read by (default:
	// the system clock).
	NowMs func() int64
	Ready Readiness
	// Writes holds every route that needs more than a read token while a
	// write would be lost (nil: never). While it holds, reads are answered
	// though Ready says not ready: the data they read is consistent.
	Writes hold.Gate
	Log    *slog.Logger
	// Observe sees every store error, so a lost connection a request finds
	// trips the replica's availability latch like one the scheduler finds.
	Observe func(error)
	// RequestTimeout bounds one request's database reads (zero or above
	// DefaultRequestTimeout, which the server's write timeout is sized
	// for: DefaultRequestTimeout). Running out of it is the request's own
	// failure (504, code "timeout"), never a sign the database is gone.
	RequestTimeout time.Duration
	// Console, when set, serves every path outside /api/ and the probes
	// (the web console), behind the same Host allow-list.
	Console http.Handler
	// Binary names the program serving (default ql): the commands a
	// refusal tells its client to run are this binary's (cmdname.As), so
	// ql-edge's API names ql-edge's.
	Binary string
}

type api struct {
	Config
	guard *guard
	// described is the OpenAPI document of the routes served (describe).
	described []byte
	// depsKeys are the dependencies changes asked for with an
	// Idempotency-Key that this server is making now.
	depsKeys depsKeys
}

// Handler is the API server's HTTP handler.
type Handler struct {
	mux *http.ServeMux
	a   *api
	g   *guard
	// patterns are the mux patterns registered, in order.
	patterns []string
	// apiPaths are the route table's paths outside /api/ (the probes,
	// /metrics): every other such path is the console's.
	apiPaths map[string]bool
	// anyHost are the probes' paths, which answer any Host: orchestrators
	// probe by address.
	anyHost map[string]bool
	// unknown answers a path no route serves, and one the mux would
	// redirect (httpserve.MuxRedirects).
	unknown http.HandlerFunc
}

// hsts tells a browser that reached the server over HTTPS to use nothing
// else for a year, so a later plain-HTTP link (or an attacker on the
// network rewriting one) cannot carry a session cookie or token in clear.
// Subdomains are left out: they may be other servers.
const hsts = "max-age=31536000"

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.TLS != nil {
		w.Header().Set("Strict-Transport-Security", hsts)
	}
	if n := headerSize(r); n > MaxHeaderSize {
		h.a.writeError(w, r, qlerror.New(codeHeadersTooLarge, "the request's line and headers are %d bytes, more than the %d this server takes; send fewer or shorter headers (a cookie or header a proxy or browser piled up)",
			n, MaxHeaderSize).Because(RefusalHeadersTooLarge, "max", MaxHeaderSize))
		return
	}
	if len(h.a.TrustedProxies) > 0 {
		if addr := clientAddr(r, h.a.TrustedProxies); addr != r.RemoteAddr {
			r = r.Clone(r.Context())
			r.RemoteAddr = addr
		}
	}
	// Before any routing: the mux answers a path it cleans (//, ..) with a
	// redirect of its own, which must not reach a rebinding page either.
	if !h.anyHost[r.URL.Path] && !h.g.hostAllowed(r) && !reachedByAddress(r) {
		if p, ok := h.a.Console.(hostRefusedPager); ok && p.HostRefusedPage(w, r, hostOf(r.Host), h.a.AllowedHosts, addressReached(r)) {
			return
		}
		h.a.writeError(w, r, qlerror.New(codeHostNotAllowed, "%s", hostRefused(r.Host)).Because(RefusalHostNotAllowed))
		return
	}
	// The console takes its paths as they came, so that its answers,
	// its own path-cleaning redirects included, carry its headers. /api
	// itself is the API's: a client asking it gets the API's 404, not the
	// console's sign-in page.
	if h.a.Console != nil && r.URL.Path != "/api" && !strings.HasPrefix(r.URL.Path, "/api/") && !h.apiPaths[r.URL.Path] {
		h.a.Console.ServeHTTP(w, r)
		return
	}
	if httpserve.MuxRedirects(h.mux, r) {
		h.unknown(w, r)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// hostRefusedPager is the console's answer to a browser that opened a
// page by a name the server does not answer to: a page in the browser's
// language saying which names it answers to (answers), where to open it
// (at) and which flag adds the name; false for any other request, which
// the guard's JSON refusal answers.
type hostRefusedPager interface {
	HostRefusedPage(w http.ResponseWriter, r *http.Request, host string, answers []string, at string) bool
}

// consoleStats is the console's side of the counters: its failed,
// throttled and busy-refused sign-ins.
type consoleStats interface {
	AuthStats() (failures, throttled, busy uint64)
}

// Stats are the handler's authentication counters.
// The console's failed and throttled sign-ins count with the API's.
func (h *Handler) Stats() Stats {
	g := h.g
	st := Stats{RateLimited: g.rateLimited.Load(), API: authlimit.Failures{
		Malformed: g.fails[failMalformed].Load(), Unknown: g.fails[failUnknown].Load(),
		Expired: g.fails[failExpired].Load(), Revoked: g.fails[failRevoked].Load(), Throttled: g.authThrottled.Load(),
	}}
	if c, ok := h.a.Console.(consoleStats); ok {
		failures, throttled, busy := c.AuthStats()
		st.Console = authlimit.Failures{Unknown: failures, Throttled: throttled}
		st.SigninBusy = busy
	}
	st.AuthFailures = st.API.Malformed + st.API.Unknown + st.API.Expired + st.API.Revoked + st.Console.Unknown
	st.AuthThrottled = st.API.Throttled + st.Console.Throttled
	return st
}

func (l Limits) withDefaults() Limits {
	if l.PerToken <= 0 {
		l.PerToken = DefaultLimits.PerToken
	}
	if l.Burst <= 0 {
		l.Burst = DefaultLimits.Burst
	}
	if l.MaxBody <= 0 {
		l.MaxBody = DefaultLimits.MaxBody
	}
	if l.FailedAuth <= 0 {
		l.FailedAuth = DefaultLimits.FailedAuth
	}
	if l.FailedAuthBurst <= 0 {
		l.FailedAuthBurst = DefaultLimits.FailedAuthBurst
	}
	return l
}

// NewHandler returns the API server's handler. Every route comes from the
// route table (routes.go), which says what scope of token it needs and
// whether it is served while the server is not ready.
func NewHandler(cfg Config) *Handler {
	return newHandler(cfg, routes)
}

// newHandler is NewHandler serving the route table table.
func newHandler(cfg Config, table []route) *Handler {
	if cfg.RequestTimeout <= 0 || cfg.RequestTimeout > DefaultRequestTimeout {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.NowMs == nil {
		cfg.NowMs = func() int64 { return time.Now().UnixMilli() }
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	hosts := map[string]bool{}
	for _, h := range cfg.AllowedHosts {
		hosts[strings.ToLower(h)] = true
	}
	if len(hosts) == 0 {
		for _, h := range loopbackHosts {
			hosts[h] = true
		}
	}
	lim := cfg.Limits.withDefaults()
	g := &guard{limits: lim, nowMs: cfg.NowMs, tokens: cfg.Tokens, hosts: hosts,
		perTok:  authlimit.NewKeyed(lim.PerToken, lim.Burst, maxTracked),
		perAddr: authlimit.NewKeyed(lim.FailedAuth, lim.FailedAuthBurst, maxTracked),
		uses:    cfg.Uses, log: authlog.New(cfg.Log, func() time.Time { return time.UnixMilli(cfg.NowMs()) })}
	if g.uses == nil {
		g.uses = apitoken.NewUses(cfg.Tokens)
	}
	a := &api{Config: cfg, guard: g, described: describe(table, cfg.Binary)}
	h := &Handler{mux: http.NewServeMux(), a: a, g: g, apiPaths: map[string]bool{}, anyHost: map[string]bool{}}
	byPattern := map[string][]route{}
	var order []string
	for _, rt := range table {
		if _, ok := byPattern[rt.pattern]; !ok {
			order = append(order, rt.pattern)
		}
		byPattern[rt.pattern] = append(byPattern[rt.pattern], rt)
		if !strings.HasPrefix(rt.pattern, "/api/") {
			h.apiPaths[rt.pattern] = true
		}
		if rt.scope == public {
			h.anyHost[rt.pattern] = true
		}
	}
	for _, p := range order {
		h.handle(p, a.dispatch(byPattern[p]))
	}
	// A path no route serves is answered only to a token, as a route's
	// other method is (dispatch): without one, every path is the same 401,
	// so the routes cannot be mapped by asking.
	h.unknown = a.protect(apitoken.Read, noProject, whenReady, checkedOnly, admitDated, nil, func(w http.ResponseWriter, r *http.Request) {
		a.writeError(w, r, qlerror.New(qlerror.NotFound, "no such endpoint %s; docs/operations.md lists the routes (/api/v1/runs, /api/v1/triggers, ...)", clip(r.URL.Path)).
			Because(RefusalNoSuchEndpoint))
	})
	h.handle("/", h.unknown)
	return h
}

func (h *Handler) handle(pattern string, fn http.HandlerFunc) {
	h.patterns = append(h.patterns, pattern)
	h.mux.HandleFunc(pattern, fn)
}

// dispatch serves one pattern's routes by method; another method is 405
// with the Allow header (HEAD is served as GET), answered only to a token
// of any scope where the routes need one: the 405 and its Allow would
// otherwise tell a client without a token which paths are routes. The 405
// is answered while the server is not ready, and to a token the store
// cannot check now, where every route of the pattern is.
func (a *api) dispatch(rs []route) http.HandlerFunc {
	handlers := map[string]http.HandlerFunc{}
	var allow []string
	protected := false
	served, unchecked := evenUnready, lastKnown
	for _, rt := range rs {
		protected = protected || rt.scope != public
		served = served && rt.served
		unchecked = unchecked && rt.unchecked
		h := a.refuseUnheld(rt, rt.handler(a))
		if rt.scope != public {
			h = a.protect(rt.scope, rt.projects, rt.served, rt.unchecked, admissionOf(rt.pattern), a.neverServed(rt.pattern), h)
		}
		handlers[rt.method] = h
		allow = append(allow, rt.method)
		if rt.method == http.MethodGet {
			allow = append(allow, http.MethodHead)
		}
	}
	wrongMethod := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		a.writeError(w, r, qlerror.New(codeMethodNotAllowed, "%s %s: only %s is supported", clip(r.Method), clip(r.URL.Path), strings.Join(allow, ", ")).
			Because(RefusalMethodNotAllowed, "allowed", strings.Join(allow, ", ")))
	}
	if protected {
		wrongMethod = a.protect(apitoken.Read, noProject, served, unchecked, admitDated, nil, wrongMethod)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		m := r.Method
		if m == http.MethodHead {
			m = http.MethodGet
		}
		if h, ok := handlers[m]; ok {
			if id, ok := canonicalID(r.PathValue("id")); ok {
				r.SetPathValue("id", id)
			}
			h(w, r)
			return
		}
		wrongMethod(w, r)
	}
}

func (a *api) observe(err error) {
	if a.Observe != nil {
		a.Observe(err)
	}
}

// rawAnswer is a handler's result that is not JSON (an attempt's output):
// it writes itself.
type rawAnswer interface {
	write(w http.ResponseWriter)
}

// admitted runs an API handler under the request timeout and answers its
// result as JSON, or as it writes itself (the route's guard has checked
// readiness and the token).
func (a *api) admitted(h func(context.Context, *http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ctx, cancel := context.WithTimeout(r.Context(), a.RequestTimeout)
		defer cancel()
		defer httpserve.NoteOutOfTime(ctx, a.Log, CodeRequestOutOfTime, r, start, a.RequestTimeout)
		body, err := h(ctx, r)
		if err != nil {
			err = a.outOfTime(ctx, r, err)
			a.observe(err)
			a.writeError(w, r, err)
			return
		}
		// The sentences an answer says name the commands as the refusals
		// do: in the words of the binary serving.
		body = cmdname.InAnswer(a.Binary, body)
		if raw, ok := body.(rawAnswer); ok {
			raw.write(w)
			return
		}
		writeJSON(w, http.StatusOK, body)
	}
}

// outOfTime names the failure of a request that ran out of its time limit
// (a store gives the bare context error, or the driver's "interrupted",
// e.g. SQLite's while another write holds the database), which would
// otherwise be answered as an internal error and logged as one: the client
// learns it may retry, or ask for less at once. An error with a code of
// its own is the store's own sentence and stays.
func (a *api) outOfTime(ctx context.Context, r *http.Request, err error) error {
	if qlerror.CodeOf(err) != qlerror.Internal || ctx.Err() != context.DeadlineExceeded || r.Context().Err() != nil {
		return err
	}
	return qlerror.Wrap(qlerror.Timeout, err, "the request did not finish within its %s limit: the database is busy (a retention pass, a large apply or backfill) "+
		"or the request asks for much at once; retry later, or ask for less (a shorter backfill window, a smaller page)", a.RequestTimeout)
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
