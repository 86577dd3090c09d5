package authlog

import (
	"log/slog"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/qinglong/qinglong/internal/core/authlimit"
)

// The codes of the authentication lines, on every profile.
const (
	// CodeSignedIn (INFO): a console sign-in with a password, an API
	// token or the first owner's setup.
	CodeSignedIn = "auth.signed_in"
	// CodeSignedOut (INFO): a console sign-out.
	CodeSignedOut = "auth.signed_out"
	// CodeFailed (INFO): a credential, password or setup code that did
	// not authenticate. INFO, not WARN: typos, expired tokens and
	// strangers' guesses are everyday, and the throttle answers them; the
	// alert is qinglong_auth_failures_total, and CodeThrottled marks an
	// address that keeps failing.
	CodeFailed = "auth.failed"
	// CodeThrottled (WARN): a request refused with 429 because its
	// address (or a console user name) failed too often: a guesser or a
	// client stuck on a bad credential, either of which needs someone.
	CodeThrottled = "auth.throttled"
	// CodeRevokedUsed (WARN): a revoked API token, or a worker credential
	// revoked or replaced by a rotation, is still being sent: whatever
	// holds it was not stopped or updated when it was taken away.
	CodeRevokedUsed = "auth.revoked_credential_used"
	// CodeWorkerForbidden (WARN): an authenticated worker acted on
	// another worker's session or attempt (403): a worker's bug, or a
	// stolen lease token.
	CodeWorkerForbidden = "auth.worker_forbidden"
	// CodeLeftOut (INFO): how many failure lines of one surface, reason
	// and client were left out after its last line, written when that
	// client has none of its own to carry the count: by a later line of
	// the same server once the client's minute is over, or, for clients
	// forgotten to keep the memory bounded, summed on one line.
	CodeLeftOut = "auth.lines_left_out"
)

// The surfaces a line names.
const (
	SurfaceAPI     = "api"
	SurfaceConsole = "console"
	SurfaceSetup   = "setup"
	SurfaceWorker  = "worker"
)

// Bounds of the failure lines (see the package's doc).
const (
	Window         = time.Minute
	LinesPerMinute = 60
	MaxClients     = 1024
)

// Event is one authentication event.
type Event struct {
	Surface string
	// Addr is the client's address, without its port.
	Addr string
	// Name is the user, token or worker name, when one is known: never a
	// name typed for an account that does not exist, which may be a
	// password typed in the wrong field.
	Name   string
	Reason string
}

// key is what one failure line a window stands for.
type key struct{ surface, reason, client string }

// window is a key's current window: until when more lines are left out,
// how many were, and the last of them (its code, address and name) for
// the line that carries the count if the key has none.
type window struct {
	until      time.Time
	suppressed int
	code       string
	last       Event
}

// Log writes the authentication lines of one surface's server (the API,
// the console or the worker ingress).
type Log struct {
	log *slog.Logger
	now func() time.Time

	mu    sync.Mutex
	seen  map[key]*window
	lines *rate.Limiter
	// forgotten sums the counts of keys makeRoom dropped with lines
	// left out, until a line carries them.
	forgotten struct{ clients, suppressed int }
}

// New returns the lines' writer to log (none when nil), reading the time
// from now.
func New(log *slog.Logger, now func() time.Time) *Log {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Log{log: log, now: now, seen: map[key]*window{},
		lines: rate.NewLimiter(rate.Every(Window/LinesPerMinute), LinesPerMinute)}
}

// SignedIn logs a sign-in at INFO.
func (l *Log) SignedIn(e Event) {
	l.log.Info("signed in", "code", CodeSignedIn, "surface", e.Surface, "addr", e.Addr, "name", e.Name, "reason", e.Reason)
}

// SignedOut logs a sign-out at INFO.
func (l *Log) SignedOut(e Event) {
	l.log.Info("signed out", "code", CodeSignedOut, "surface", e.Surface, "addr", e.Addr, "name", e.Name)
}

// Failed logs a failed authentication at INFO, within the bounds.
func (l *Log) Failed(e Event) {
	if n, ok := l.admit(e, CodeFailed); ok {
		l.log.Info("authentication failed", "code", CodeFailed, "surface", e.Surface, "addr", e.Addr, "name", e.Name, "reason", e.Reason, "suppressed", n)
	}
}

// Throttled logs a request refused for its address's failures at WARN,
// within the bounds.
func (l *Log) Throttled(e Event) {
	if n, ok := l.admit(e, CodeThrottled); ok {
		l.log.Warn("request throttled", "code", CodeThrottled, "surface", e.Surface, "addr", e.Addr, "name", e.Name, "reason", e.Reason, "suppressed", n)
	}
}

// RevokedUsed logs a revoked or replaced credential still sent at WARN,
// within the bounds.
func (l *Log) RevokedUsed(e Event) {
	if n, ok := l.admit(e, CodeRevokedUsed); ok {
		l.log.Warn("a revoked credential is still in use", "code", CodeRevokedUsed, "surface", e.Surface, "addr", e.Addr, "name", e.Name, "reason", e.Reason, "suppressed", n)
	}
}

// WorkerForbidden logs a worker acting on another worker's session or
// attempt at WARN, within the bounds.
func (l *Log) WorkerForbidden(e Event) {
	if n, ok := l.admit(e, CodeWorkerForbidden); ok {
		l.log.Warn("a worker acted on another worker's session or attempt", "code", CodeWorkerForbidden, "surface", e.Surface, "addr", e.Addr, "name", e.Name, "reason", e.Reason, "suppressed", n)
	}
}

// admit reports whether e's line (of code) is written now, and how many
// of its key's were left out since its last one. A line the budget of
// all keys leaves out starts no window: the key's next event tries
// again. A line written also writes the counts other keys are owed
// (flushLeftOut), so a count reaches the log though its client never
// fails again, without a goroutine: the cost is one pass over at most
// MaxClients keys per line written, and lines are LinesPerMinute at most.
func (l *Log) admit(e Event, code string) (suppressed int, ok bool) {
	k := key{e.Surface, e.Reason, authlimit.Client(e.Addr)}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	w := l.seen[k]
	if w == nil {
		l.makeRoom(now)
		w = &window{}
		l.seen[k] = w
	}
	if now.Before(w.until) || !l.lines.AllowN(now, 1) {
		w.suppressed++
		w.code, w.last = code, e
		return 0, false
	}
	suppressed = w.suppressed
	*w = window{until: now.Add(Window)}
	l.flushLeftOut(now)
	return suppressed, true
}

// flushLeftOut writes, within the budget of lines, the count of every
// key whose window ended with lines left out, and the sum of the keys
// makeRoom forgot. A key's count line opens a new window, so its client
// still gets one line a minute at most; l.mu is held.
func (l *Log) flushLeftOut(now time.Time) {
	for k, w := range l.seen {
		if w.suppressed == 0 || now.Before(w.until) {
			continue
		}
		if !l.lines.AllowN(now, 1) {
			return
		}
		l.log.Info("authentication lines left out", "code", CodeLeftOut, "of", w.code, "surface", k.surface, "addr", w.last.Addr, "name", w.last.Name, "reason", k.reason, "suppressed", w.suppressed)
		*w = window{until: now.Add(Window)}
	}
	if l.forgotten.suppressed > 0 && l.lines.AllowN(now, 1) {
		l.log.Info("authentication lines left out by clients no longer remembered", "code", CodeLeftOut, "clients", l.forgotten.clients, "suppressed", l.forgotten.suppressed)
		l.forgotten.clients, l.forgotten.suppressed = 0, 0
	}
}

// makeRoom keeps the keys under MaxClients. It forgets every key whose
// window ended with nothing left out (nothing is lost); failing that,
// every key whose window ended; failing that, the tenth of the keys whose
// windows end first. The counts of keys forgotten with lines left out
// are summed in l.forgotten for the next line to carry. A flood of new
// clients so costs one pass over the keys per many keys, not per key;
// l.mu is held.
func (l *Log) makeRoom(now time.Time) {
	if len(l.seen) < MaxClients {
		return
	}
	ended := func(w *window) bool { return !now.Before(w.until) }
	for _, drop := range []func(w *window) bool{
		func(w *window) bool { return ended(w) && w.suppressed == 0 },
		ended,
	} {
		for k, w := range l.seen {
			if drop(w) {
				l.forget(k)
			}
		}
		if len(l.seen) < MaxClients {
			return
		}
	}
	keys := make([]key, 0, len(l.seen))
	for k := range l.seen {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int { return l.seen[a].until.Compare(l.seen[b].until) })
	for _, k := range keys[:MaxClients/10] {
		l.forget(k)
	}
}

// forget drops k, adding its count to l.forgotten; l.mu is held.
func (l *Log) forget(k key) {
	if n := l.seen[k].suppressed; n > 0 {
		l.forgotten.clients++
		l.forgotten.suppressed += n
	}
	delete(l.seen, k)
}
