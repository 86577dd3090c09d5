package workeringress

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/authlimit"
	"github.com/qinglong/qinglong/internal/core/authlog"
	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// DefaultStepTimeout bounds one worker-API call; a long-poll waits on top
// of it, so the ingress server's write timeout is WriteTimeout.
const DefaultStepTimeout = httpserve.MaxHandlerTime

// WriteTimeout is the write timeout the ingress server needs: the longest
// long-poll plus the database steps around it.
const WriteTimeout = workerproto.MaxPullWait + 2*DefaultStepTimeout + 5*time.Second

// maxCredential bounds the Authorization header's credential: far above
// any credential the database hands out, far below a header that costs.
const maxCredential = 512

// Config wires the handler.
type Config struct {
	// Acquire hands out the live activation's store.
	Acquire Acquire
	// Settings are passed to every worker-API call that takes them.
	Settings pgstore.WorkerSettings
	Log      *slog.Logger
	// Observe sees every store error, so a lost connection a worker
	// request finds trips the replica's availability latch.
	Observe func(error)
	// Rate and Burst are the per-worker token bucket (defaults
	// DefaultRate, DefaultBurst).
	Rate  float64
	Burst int
	// FailedAuth and FailedAuthBurst are the failed authentications one
	// remote address may make (defaults DefaultFailedAuth,
	// DefaultFailedAuthBurst).
	FailedAuth      rate.Limit
	FailedAuthBurst int
	// Completed, when set, sees every accepted completion, replays
	// included (marked so): for monitoring, a Run it finished or that got
	// a next attempt.
	Completed func(pgstore.Completed)
	// Started, when set, sees every accepted start: for monitoring, a Run
	// it finished (cancelled before its start).
	Started func(pgstore.Started)
}

// Handler serves the worker ingress.
type Handler struct {
	acquire   Acquire
	settings  pgstore.WorkerSettings
	log       *slog.Logger
	observe   func(error)
	completed func(pgstore.Completed)
	started   func(pgstore.Started)
	limits    *limiter
	auth      *authCache
	authLog   *authlog.Log
	perAddr   *authlimit.Keyed
	// tries holds a try of the address's limit for each check in
	// progress, so requests at once cannot pass a limit with one left.
	tries authlimit.Tries

	malformed, unknown, revoked, throttled atomic.Uint64
	// behindWarned: the database was found behind what workers were told
	// (CodeDatabaseBehind), said once per process.
	behindWarned atomic.Bool
	wakeup       *broadcast
	// changed wakes the waiting pulls and the watches (pulls of max 0):
	// a session stopped being active.
	changed *broadcast
	// stops wakes the waiting pull or watch of one session: a stop was
	// asked of one of its attempts.
	stops  *sessionWakes
	routes map[string]func(*request)

	stopOnce sync.Once
	stopped  chan struct{}
}

// New returns the ingress handler.
func New(cfg Config) *Handler {
	if cfg.Rate <= 0 {
		cfg.Rate = DefaultRate
	}
	if cfg.Burst <= 0 {
		cfg.Burst = DefaultBurst
	}
	if cfg.FailedAuth <= 0 {
		cfg.FailedAuth = DefaultFailedAuth
	}
	if cfg.FailedAuthBurst <= 0 {
		cfg.FailedAuthBurst = DefaultFailedAuthBurst
	}
	if cfg.Observe == nil {
		cfg.Observe = func(error) {}
	}
	if cfg.Completed == nil {
		cfg.Completed = func(pgstore.Completed) {}
	}
	if cfg.Started == nil {
		cfg.Started = func(pgstore.Started) {}
	}
	h := &Handler{
		acquire: cfg.Acquire, settings: cfg.Settings, log: cfg.Log, observe: cfg.Observe, completed: cfg.Completed, started: cfg.Started,
		limits: newLimiter(cfg.Rate, cfg.Burst), auth: newAuthCache(), wakeup: newBroadcast(), changed: newBroadcast(), stops: newSessionWakes(),
		perAddr: authlimit.NewKeyed(cfg.FailedAuth, cfg.FailedAuthBurst, maxAddresses), authLog: authlog.New(cfg.Log, time.Now),
		stopped: make(chan struct{}),
	}
	h.routes = map[string]func(*request){
		workerproto.PathRegister:  h.register,
		workerproto.PathHeartbeat: h.heartbeat,
		workerproto.PathPull:      h.pull,
		workerproto.PathStart:     h.start,
		workerproto.PathRenew:     h.renew,
		workerproto.PathLog:       h.appendLog,
		workerproto.PathComplete:  h.complete,
		workerproto.PathEnd:       h.end,
		workerproto.PathGiveBack:  h.giveBack,
	}
	return h
}

// Wake sends every waiting pull back to the database: work may be ready
// (an admission, a notification from another replica, a released lease).
func (h *Handler) Wake() { h.wakeup.wake() }

// WakeSessions sends every waiting pull and every watch back to the
// database: a session may have stopped being active (replaced, or its
// worker revoked or drained). Watches
// are not woken by Wake: a queued Run concerns no worker whose every slot
// is busy, and waking them for each one would cost a query per full
// worker per admission.
func (h *Handler) WakeSessions() {
	h.wakeup.wake()
	h.changed.wake()
}

// StopAsked sends the waiting pull or watch of session back to the
// database, which answers the session's attempts a stop was asked of: its
// worker renews them at once and hears stop, instead of at its renewal
// timer. No other pull or watch is woken.
func (h *Handler) StopAsked(session string) { h.stops.wake(session) }

// Notified is the listener's wake: StopAsked for a notification that a
// stop was asked, WakeSessions for one that a session changed, Wake for
// Runs queued; a listener's (re)start wakes every pull and watch, and has
// each read its stops too, since the notices sent meanwhile are lost.
func (h *Handler) Notified(n Notice) {
	switch {
	case n.Relisten:
		h.WakeSessions()
		h.stops.wakeAll()
	case n.StopAsked != "":
		h.StopAsked(n.StopAsked)
	case n.SessionChanged:
		h.WakeSessions()
	default:
		h.Wake()
	}
}

// Stop ends every waiting pull now, so the server's shutdown is not held
// by long-polls, and has every request this replica no longer serves
// answered replica_stopping: the worker sends it to its next --server at
// once. Idempotent.
func (h *Handler) Stop() { h.stopOnce.Do(func() { close(h.stopped) }) }

// errStopping answers every request a stopping replica does not serve.
var errStopping = qlerror.New(codeStopping, "this replica is stopping (a restart or a scale-down); send the same request to another replica")

// stopping reports whether Stop was called.
func (h *Handler) stopping() bool {
	select {
	case <-h.stopped:
		return true
	default:
		return false
	}
}

// request is one authenticated request on its way through.
type request struct {
	w          http.ResponseWriter
	r          *http.Request
	st         Store
	release    func()
	worker     pgstore.WorkerIdentity
	credential string
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	route, ok := h.routes[r.URL.Path]
	if !ok {
		h.writeError(w, r, qlerror.New(qlerror.NotFound, "no worker ingress path %s; the paths are under /worker/v1/", r.URL.Path))
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.writeError(w, r, qlerror.New(codeMethodNotAllowed, "%s takes POST, not %s", r.URL.Path, r.Method))
		return
	}
	credential, shaped := bearer(r)
	key := sha256.Sum256([]byte(credential))
	// A credential authenticated here lately passes the address's throttle
	// (VouchFor); any other request holds one of the address's tries until
	// it is known to have failed, before the database is asked anything.
	var held authlimit.Try
	checked := !shaped || !h.auth.vouched(key, time.Now())
	if checked {
		addr := peerHost(r)
		var ok bool
		client := authlimit.Client(addr)
		if held, ok = h.tries.Reserve(time.Now(), h.perAddr.Key(client)); !ok {
			h.throttled.Add(1)
			h.authLog.Throttled(authlog.Event{Surface: authlog.SurfaceWorker, Addr: addr, Reason: authlog.ReasonThrottled})
			w.Header().Set("Retry-After", strconv.Itoa(int(failedAuthRetry/time.Second)))
			h.writeError(w, r, qlerror.New(codeRateLimited, "too many failed authentications from %s; check the credential of every worker there (`ql workers list` names the valid ones) and retry after the Retry-After header's seconds", client))
			return
		}
	}
	settle := func(failed bool) {
		if checked {
			held.Settle(time.Now(), failed)
		}
	}
	if !shaped {
		settle(true)
		h.malformed.Add(1)
		h.authLog.Failed(authlog.Event{Surface: authlog.SurfaceWorker, Addr: peerHost(r), Reason: authlog.ReasonCredentialMissing})
		w.Header().Set("WWW-Authenticate", "Bearer")
		h.writeError(w, r, qlerror.New(qlerror.Unauthenticated, "send the worker credential as Authorization: Bearer %s… (the whole line `ql workers create` or `ql workers rotate` printed)",
			workerproto.CredentialPrefix))
		return
	}
	if h.stopping() {
		settle(false)
		h.writeError(w, r, errStopping)
		return
	}
	st, release, ok := h.acquire()
	if !ok {
		settle(false)
		h.writeError(w, r, qlerror.New(qlerror.Unavailable, "this replica is not ready (starting, re-activating its database or draining); retry the same request, here or at another replica"))
		return
	}
	req := &request{w: w, r: r, st: st, release: release, credential: credential}
	defer func() { req.release() }()
	worker, err := h.authenticate(r.Context(), st, key, credential)
	refused := qlerror.Is(err, qlerror.Unauthenticated)
	settle(refused)
	if err != nil {
		if refused {
			h.refused(r, err)
			h.auth.forget(key)
			w.Header().Set("WWW-Authenticate", "Bearer")
		}
		h.fail(req, err)
		return
	}
	req.worker = worker
	if ok, wait := h.limits.allow(worker.ID, time.Now()); !ok {
		h.authLog.Throttled(authlog.Event{Surface: authlog.SurfaceWorker, Addr: peerHost(r), Name: worker.Name, Reason: authlog.ReasonWorkerOverRate})
		w.Header().Set("Retry-After", strconv.FormatInt(int64(wait/time.Second)+1, 10))
		h.writeError(w, r, qlerror.New(codeRateLimited, "worker %s sends more than %g requests per second; slow down and retry after the Retry-After header's seconds", worker.Name, h.limits.rate))
		return
	}
	route(req)
}

// refused counts and logs a credential the database refused: a revoked
// or replaced one at WARN with its worker's name (a worker still running
// after its credential was taken away), an unknown one at INFO.
func (h *Handler) refused(r *http.Request, err error) {
	e := authlog.Event{Surface: authlog.SurfaceWorker, Addr: peerHost(r), Name: qlerror.ParamsOf(err)["worker"], Reason: authlog.ReasonCredentialUnknown}
	switch qlerror.ReasonOf(err) {
	case pgstore.RefusalWorkerRevoked:
		e.Reason = authlog.ReasonCredentialRevoked
	case pgstore.RefusalWorkerReplaced:
		e.Reason = authlog.ReasonCredentialReplaced
	default:
		h.unknown.Add(1)
		h.authLog.Failed(e)
		return
	}
	h.revoked.Add(1)
	h.authLog.RevokedUsed(e)
}

// failedAuthRetry is the Retry-After of a throttled address: the time one
// more try takes to come back at the default limit.
const failedAuthRetry = time.Minute

// AuthStats are the ingress's failed authentications since it started:
// malformed (no credential, or one not shaped like a worker credential),
// unknown (the database knows no such credential: a typo, or a guess),
// revoked (an admin revoked it: a worker still running after `ql workers
// revoke`) and throttled (its address failed too often).
func (h *Handler) AuthStats() authlimit.Failures {
	return authlimit.Failures{Malformed: h.malformed.Load(), Unknown: h.unknown.Load(), Revoked: h.revoked.Load(), Throttled: h.throttled.Load()}
}

// peerHost is the address of the request's peer without its port. The
// ingress believes no forwarding header: workers connect to it directly
// (TLS ends at the replica).
func peerHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// bearer is the request's credential, if it carries one of the right shape.
func bearer(r *http.Request) (string, bool) {
	v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	v = strings.TrimSpace(v)
	if !ok || len(v) > maxCredential || !strings.HasPrefix(v, workerproto.CredentialPrefix) {
		return "", false
	}
	return v, true
}

// authenticate asks the database who the credential belongs to, unless it
// did so less than AuthCacheTTL ago. The time is taken before the query,
// so the cached answer is never older than the bound.
func (h *Handler) authenticate(ctx context.Context, st Store, key [sha256.Size]byte, credential string) (pgstore.WorkerIdentity, error) {
	now := time.Now()
	if id, ok := h.auth.get(key, now); ok {
		return id, nil
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultStepTimeout)
	defer cancel()
	id, err := st.AuthenticateWorker(ctx, credential)
	if err != nil {
		return pgstore.WorkerIdentity{}, err
	}
	h.auth.put(key, id, now)
	return id, nil
}

// fail answers a store error, letting the replica see it first. A
// worker refused another worker's session or attempt is logged at WARN:
// a worker's bug, or a lease token that got where it should not.
func (h *Handler) fail(req *request, err error, secrets ...string) {
	h.observe(err)
	if qlerror.Is(err, qlerror.PermissionDenied) && req.worker.Name != "" {
		h.authLog.WorkerForbidden(authlog.Event{Surface: authlog.SurfaceWorker, Addr: peerHost(req.r), Name: req.worker.Name, Reason: authlog.ReasonOtherWorkers})
	}
	h.writeError(req.w, req.r, err, append(secrets, req.credential)...)
}

// errTrailing is a body with more after its JSON object.
var errTrailing = errors.New("data after the JSON object")

// decode reads the body under its cap into v, refusing unknown fields and
// trailing data; it answers the failure itself and reports false.
func (h *Handler) decode(req *request, limit int64, v any) bool {
	body := http.MaxBytesReader(req.w, req.r.Body, limit)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			err = errTrailing
		}
	}
	if err == nil {
		return true
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		h.writeError(req.w, req.r, qlerror.New(codeTooLarge, "the body of %s is over its cap of %d bytes", req.r.URL.Path, limit), req.credential)
		return false
	}
	h.writeError(req.w, req.r, qlerror.New(qlerror.Invalid, "the body of %s is not the JSON it takes: %s", req.r.URL.Path, decodeProblem(err)), req.credential)
	return false
}

// decodeProblem says what was wrong with a body without quoting its
// values (a token or log text could be among them).
func decodeProblem(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return "the body is empty"
	case errors.Is(err, errTrailing):
		return err.Error()
	case errors.As(err, &syntax):
		return "malformed JSON at byte " + strconv.FormatInt(syntax.Offset, 10)
	case errors.As(err, &typ):
		return "field " + typ.Field + " must be a " + typ.Type.String()
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	}
	return "malformed JSON"
}

// step runs one worker-API call under the step timeout.
func step[Req, Reply any](h *Handler, req *request, limit int64, call func(context.Context, Req) (Reply, error), secrets func(Req) []string) {
	var in Req
	if !h.decode(req, limit, &in) {
		return
	}
	ctx, cancel := context.WithTimeout(req.r.Context(), DefaultStepTimeout)
	defer cancel()
	out, err := call(ctx, in)
	if err != nil {
		h.fail(req, err, secrets(in)...)
		return
	}
	writeJSON(req.w, http.StatusOK, out)
}

func noSecrets[T any](T) []string { return nil }

func (h *Handler) register(req *request) {
	step(h, req, workerproto.MaxBody, func(ctx context.Context, in workerproto.RegisterRequest) (workerproto.RegisterReply, error) {
		reg, err := req.st.RegisterWorker(ctx, req.worker, in, h.settings)
		if err == nil {
			h.labelsChanged(req.worker.Name, reg)
		}
		return reg.RegisterReply, err
	}, noSecrets)
}

func (h *Handler) heartbeat(req *request) {
	step(h, req, workerproto.MaxBody, func(ctx context.Context, in workerproto.HeartbeatRequest) (workerproto.HeartbeatReply, error) {
		return req.st.HeartbeatWorker(ctx, req.worker, in)
	}, noSecrets)
}

func (h *Handler) end(req *request) {
	step(h, req, workerproto.MaxBody, func(ctx context.Context, in workerproto.EndRequest) (workerproto.EndReply, error) {
		return req.st.EndWorkerSession(ctx, req.worker, in)
	}, noSecrets)
}

func (h *Handler) giveBack(req *request) {
	step(h, req, workerproto.MaxBody, func(ctx context.Context, in workerproto.GiveBackRequest) (workerproto.GiveBackReply, error) {
		return req.st.GiveBackGrant(ctx, req.worker, in)
	}, func(in workerproto.GiveBackRequest) []string { return []string{in.Token} })
}

func (h *Handler) start(req *request) {
	step(h, req, workerproto.MaxBody, func(ctx context.Context, in workerproto.StartRequest) (workerproto.LeaseReply, error) {
		started, err := req.st.StartAttempt(ctx, req.worker, in, h.settings)
		if err == nil {
			h.started(started)
		}
		return started.LeaseReply, err
	}, func(in workerproto.StartRequest) []string { return []string{in.Token} })
}

func (h *Handler) renew(req *request) {
	step(h, req, workerproto.MaxBody, func(ctx context.Context, in workerproto.RenewRequest) (workerproto.LeaseReply, error) {
		return req.st.RenewAttempt(ctx, req.worker, in, h.settings)
	}, func(in workerproto.RenewRequest) []string { return []string{in.Token} })
}

func (h *Handler) appendLog(req *request) {
	step(h, req, workerproto.MaxLogBody, func(ctx context.Context, in workerproto.LogRequest) (workerproto.LogReply, error) {
		return req.st.AppendAttemptLog(ctx, req.worker, in, h.settings)
	}, func(in workerproto.LogRequest) []string { return []string{in.Token} })
}

func (h *Handler) complete(req *request) {
	step(h, req, workerproto.MaxBody, func(ctx context.Context, in workerproto.CompleteRequest) (workerproto.CompleteReply, error) {
		done, err := req.st.CompleteAttempt(ctx, req.worker, in)
		if err == nil {
			h.completed(done)
		}
		return done.CompleteReply, err
	}, func(in workerproto.CompleteRequest) []string { return []string{in.Token} })
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
