package httpapi

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/authlimit"
	"github.com/qinglong/qinglong/internal/core/authlog"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// HTTP-only failures beside the qlerror vocabulary.
const (
	codeRateLimited    qlerror.Code = "rate_limited"
	codeTooLarge       qlerror.Code = "request_too_large"
	codeHostNotAllowed qlerror.Code = "host_not_allowed"
)

// Limits bound what one client may ask of the server.
type Limits struct {
	// PerToken is the steady request rate each token may use, with Burst
	// requests above it at once.
	PerToken rate.Limit
	Burst    int
	// MaxBody caps a request body in bytes; more is refused with 413.
	MaxBody int64
	// FailedAuth is the rate of failed authentications one remote address
	// may make, with FailedAuthBurst at once; past it, its requests whose
	// token does not authenticate are refused with 429 without saying why
	// (a valid token is still served: authenticate says why).
	FailedAuth      rate.Limit
	FailedAuthBurst int
}

// DefaultLimits suit an operator's scripts and a console: 20 requests a
// second per token (bursts of 40), 1 MiB bodies, and 10 failed
// authentications per address before it is slowed to one a minute.
var DefaultLimits = Limits{
	PerToken: 20, Burst: 40, MaxBody: 1 << 20,
	FailedAuth: rate.Every(time.Minute), FailedAuthBurst: 10,
}

// maxTracked bounds the per-address and per-token sets of limits (a full
// set forgets the clients it limits least, authlimit.Keyed).
const maxTracked = 10_000

// Stats are the server's authentication counters since it started, for
// metrics.
type Stats struct {
	// AuthFailures counts requests refused with 401 (no token, a
	// malformed, unknown, revoked or expired one).
	AuthFailures uint64
	// AuthThrottled counts requests refused with 429 because their
	// address failed to authenticate too often.
	AuthThrottled uint64
	// RateLimited counts requests refused with 429 because their token
	// used up its rate.
	RateLimited uint64
	// SigninBusy counts console sign-ins refused with 503 because too
	// many passwords were being checked at once.
	SigninBusy uint64
	// API and Console are the failures AuthFailures and AuthThrottled sum,
	// by surface and reason.
	API, Console authlimit.Failures
}

type guard struct {
	limits  Limits
	nowMs   func() int64
	tokens  apitoken.Authenticator
	hosts   map[string]bool
	perTok  *authlimit.Keyed
	perAddr *authlimit.Keyed
	// tries holds a try of the address's limit for each check in
	// progress, so requests at once cannot pass a limit with one left.
	tries authlimit.Tries
	uses  *apitoken.Uses
	log   *authlog.Log
	// known are the tokens last found valid, for a scrape while the store
	// cannot answer.
	known knownTokens

	// fails counts the failed authentications by reason.
	fails                      [failKinds]atomic.Uint64
	authThrottled, rateLimited atomic.Uint64
}

// failure is why an authentication failed, for the counters.
type failure int

const (
	failNone failure = iota
	failMalformed
	failUnknown
	failExpired
	failRevoked
	failKinds
)

// principal is who made a request: the token's name and the remote
// address, for the audit record of what it changes.
type principal struct {
	token, addr string
	// tok is the token itself, whose projects the routes check.
	tok apitoken.Token
}

type principalKey struct{}

func principalOf(ctx context.Context) principal {
	p, _ := ctx.Value(principalKey{}).(principal)
	return p
}

// actor is the audit trail's "who, from where" of a request, within the
// 128 characters an audit record holds.
func (p principal) actor() string {
	s := "api:" + p.token + "@" + p.addr
	if len(s) > 128 {
		s = s[:128]
	}
	return s
}

// keyOwner is whose an Idempotency-Key is: the token's, by its id, from
// wherever it is sent, so that a retry through another proxy or address
// is the same caller's and another token's same key is not.
func (p principal) keyOwner() string { return "token:" + p.tok.ID }

func remoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// hostAllowed checks the Host header against the allow-list, so a page on
// another site that rebinds its DNS name to this server's address cannot
// reach the API from a browser.
func (g *guard) hostAllowed(r *http.Request) bool {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	return g.hosts[host]
}

// authenticate returns the request's token, or the error to answer with.
//
// Only failed authentications are throttled: a token that proves valid
// is served even from an address that failed too often. Every local user
// shares 127.0.0.1, and every client of a proxy without --trusted-proxies
// shares the proxy's address, so a throttle that refused valid tokens
// would let one broken script (or one bad request a minute) lock out
// everyone else there, Prometheus's scrape of /metrics included. This
// does not weaken the guard: a token is 32 random bytes, so guessing one
// is hopeless at any rate and the throttle was never what stopped it;
// what the throttle does is answer a failing client 429 without the
// verdict (unknown, revoked, expired, malformed), count it as throttled
// for the alert, and tell it by Retry-After to back off — all of which
// still holds for every token that fails. A throttled address's
// malformed token is refused before any lookup; a well-shaped one costs
// one digest and one indexed read, what any request with a token costs.
// Passwords, which can be guessed, are the console's (signinUser): its
// throttle is its own and still refuses before the password is checked.
func (g *guard) authenticate(r *http.Request, unchecked storeDown) (apitoken.Token, error) {
	addr := remoteHost(r)
	client := authlimit.Client(addr)
	held, open := g.tries.Reserve(time.Now(), g.perAddr.Key(client))
	if !open {
		t, why, err := g.check(r, unchecked)
		if why == failNone {
			return t, err
		}
		g.authThrottled.Add(1)
		g.log.Throttled(authlog.Event{Surface: authlog.SurfaceAPI, Addr: addr, Reason: string(RefusalAddressThrottled)})
		return apitoken.Token{}, qlerror.New(codeRateLimited, "the request's token did not authenticate, and %s has failed to authenticate too often "+
			"(%d times, then once a minute): requests with a valid token are still served from it, this one is refused without saying why; "+
			"retry with a valid token, and stop the client that keeps sending a bad one (behind a proxy, --trusted-proxies tells its clients apart)",
			client, g.limits.FailedAuthBurst).Because(RefusalAddressThrottled, "address", client, "retryAfterSeconds", 60)
	}
	t, why, err := g.check(r, unchecked)
	failed := qlerror.CodeOf(err) == qlerror.Unauthenticated
	held.Settle(time.Now(), failed)
	if failed {
		g.fails[why].Add(1)
		g.logFailure(addr, err)
	}
	return t, err
}

// logFailure logs a failed authentication with its reason and, when the
// token was known, its name: a revoked token still sent at WARN, since
// whatever sends it was not stopped when it was revoked.
func (g *guard) logFailure(addr string, err error) {
	e := authlog.Event{Surface: authlog.SurfaceAPI, Addr: addr, Name: qlerror.ParamsOf(err)["token"], Reason: string(qlerror.ReasonOf(err))}
	if qlerror.ReasonOf(err) == RefusalTokenRevoked {
		g.log.RevokedUsed(e)
		return
	}
	g.log.Failed(e)
}

// bearerToken is the token of an Authorization header in the Bearer
// scheme. RFC 7235 makes the scheme's name case-insensitive and lets one or
// more spaces follow it.
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimLeft(token, " "), true
}

// check reads the request's bearer token and finds it valid, or returns
// the Unauthenticated error that says what is wrong with it. A token not
// shaped like one is refused by its shape, never looked up. unchecked is
// the route's rule for a token the store cannot check now.
func (g *guard) check(r *http.Request, unchecked storeDown) (apitoken.Token, failure, error) {
	raw, ok := bearerToken(r.Header.Get("Authorization"))
	if !ok || raw == "" {
		return apitoken.Token{}, failMalformed, qlerror.New(qlerror.Unauthenticated, "this endpoint needs an API token: send it as `Authorization: Bearer TOKEN` (create one with `ql tokens create NAME --scope read`)").
			Because(RefusalTokenMissing)
	}
	if problem := apitoken.ShapeProblem(raw); problem != "" {
		return apitoken.Token{}, failMalformed, qlerror.New(qlerror.Unauthenticated, "the API token is malformed: %s (printed once by `ql tokens create`, which makes a new one)", problem).
			Because(RefusalTokenMalformed)
	}
	digest := apitoken.Digest(raw)
	ctx, cancel := lookupContext(r.Context(), unchecked)
	t, err := g.tokens.TokenByDigest(ctx, digest)
	cancel()
	if qlerror.CodeOf(err) == qlerror.NotFound {
		g.known.forget(digest)
		return apitoken.Token{}, failUnknown, qlerror.New(qlerror.Unauthenticated, "the API token is not known to this server's database (a token belongs to the database that created it: one made on another installation, or after the backup this one was restored from, is not here); list tokens with `ql tokens list`").Because(RefusalTokenUnknown)
	}
	stored := err == nil
	if err != nil {
		// A route marked lastKnown is served to a token the store last
		// found valid while the store cannot answer (knownTokens); any
		// other is not.
		known, ok := g.known.known(digest)
		if !ok || unchecked != lastKnown {
			return apitoken.Token{}, failNone, err
		}
		t = known
	}
	now := g.nowMs()
	switch t.StateAt(now) {
	case apitoken.StateRevoked:
		g.known.forget(digest)
		return apitoken.Token{}, failRevoked, qlerror.New(qlerror.Unauthenticated, "the API token %q is revoked; create a new one with `ql tokens create`", t.Name).
			Because(RefusalTokenRevoked, "token", t.Name)
	case apitoken.StateExpired:
		g.known.forget(digest)
		return apitoken.Token{}, failExpired, qlerror.New(qlerror.Unauthenticated, "the API token %q has expired; create a new one with `ql tokens create`", t.Name).
			Because(RefusalTokenExpired, "token", t.Name)
	}
	if stored {
		// A use is recorded in the store, which did not answer otherwise.
		g.known.remember(digest, t)
		g.uses.Record(r.Context(), t.ID, now)
	}
	return t, failNone, nil
}

// notReadyRetrySeconds is the Retry-After of a request a server not
// ready refuses: a start, a drain or a database coming back takes seconds,
// and /readyz says when it is over.
const notReadyRetrySeconds = "5"

// protect wraps a route that needs a token of scope need and is served
// as its rule served says while the server is not ready, and as its rule
// unchecked says to a token the store cannot check now; never, when not
// nil, says why this server can serve the request to no token at all,
// which a token of too small a scope is told instead of the scope it
// lacks: asking for a larger token would only meet that refusal. An
// undated write (undatedWrites) passes the hold for the clock; a route
// that admits itself (admitsItself) is not held here.
func (a *api) protect(need apitoken.Scope, rule projectRule, served readiness, unchecked storeDown, adm admission, never func(*http.Request) error, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		g := a.guard
		// A server not ready only because its writes are held answers
		// reads, and refuses a write below in the hold's own words.
		if ok, reason := a.Ready(); !ok && hold.Held(a.Writes) == nil && served == whenReady {
			// Retry-After lets an HTTP client's own retry policy wait
			// rather than give up or ask again at once.
			w.Header().Set("Retry-After", notReadyRetrySeconds)
			a.writeError(w, r, qlerror.New(qlerror.Unavailable, "this server is not admitting requests (%s); retry in %s seconds, or ask another server if you run several", reason, notReadyRetrySeconds).
				Because(RefusalNotReady, "readiness", reason, "retryAfterSeconds", notReadyRetrySeconds))
			return
		}
		t, err := g.authenticate(r, unchecked)
		if err != nil {
			if qlerror.CodeOf(err) == qlerror.Unauthenticated {
				w.Header().Set("WWW-Authenticate", `Bearer realm="qinglong"`)
			}
			if qlerror.CodeOf(err) == codeRateLimited {
				w.Header().Set("Retry-After", "60")
			}
			a.observe(err)
			a.writeError(w, r, err)
			return
		}
		if !t.Scope.Allows(need) {
			if never != nil {
				if err := never(r); err != nil {
					a.writeError(w, r, err)
					return
				}
			}
			a.writeError(w, r, qlerror.New(qlerror.PermissionDenied, "%s %s needs a token of scope %s; token %q has scope %s",
				r.Method, r.URL.Path, need, t.Name, t.Scope).Because(RefusalScopeTooSmall, "token", t.Name, "scope", t.Scope, "need", need))
			return
		}
		if !g.tries.Allow(time.Now(), g.perTok.Key(t.ID)) {
			g.rateLimited.Add(1)
			g.log.Throttled(authlog.Event{Surface: authlog.SurfaceAPI, Addr: remoteHost(r), Name: t.Name, Reason: string(RefusalTokenOverRate)})
			w.Header().Set("Retry-After", "1")
			a.writeError(w, r, qlerror.New(codeRateLimited, "token %q is over its rate of %g requests a second; slow down and retry", t.Name, float64(g.limits.PerToken)).
				Because(RefusalTokenOverRate, "token", t.Name, "retryAfterSeconds", 1))
			return
		}
		if t.Bound() {
			if err := a.boundedRouteProject(rule, t, r); err != nil {
				a.writeError(w, r, err)
				return
			}
		}
		if need != apitoken.Read && adm != admitsItself {
			// Held open until the write is done: the hold waits for it, so
			// no write admitted before the hold lands after it began.
			admit := hold.Admit
			if adm == admitUndated {
				admit = hold.AdmitUndated
			}
			done, err := admit(a.Writes)
			if err != nil {
				a.writeError(w, r, err)
				return
			}
			defer done()
		}
		r.Body = http.MaxBytesReader(w, r.Body, g.limits.MaxBody)
		ctx := context.WithValue(r.Context(), principalKey{}, principal{token: t.Name, addr: remoteHost(r), tok: t})
		h(w, r.WithContext(ctx))
	}
}

// tooLarge turns a body read past the cap into its own error.
func tooLarge(err error, limit int64) error {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return qlerror.New(codeTooLarge, "the request body is larger than %d bytes; send a smaller one", limit).Because(RefusalBodyTooLarge, "max", limit)
	}
	return err
}
