package httpserve

import (
	"log"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"time"
)

// connErrorEvery is the least time between two warnings of one kind of
// connection error from one remote host: a client that retries a failing
// connection for ever (a worker sending plain HTTP to HTTPS) would
// otherwise fill the log with one line per retry.
const connErrorEvery = time.Minute

// connErrorKeys bounds the kinds and hosts remembered. Past it the errors
// of those not remembered share one allowance, so a scan from many
// addresses neither grows the memory nor fills the log.
const connErrorKeys = 1024

// ConnectionErrorLog is a listener's error log (Options.ErrorLog): each
// connection-level error Go's server reports becomes a warning of l under
// code, in l's format, not a bare line of Go's standard logger that a log
// shipper cannot parse. An error of the kind and remote host of one said
// less than connErrorEvery ago is not said; the next warning of them
// counts those (suppressed).
func ConnectionErrorLog(l *slog.Logger, code string) *log.Logger {
	return log.New(newConnErrors(l, code, time.Now), "", 0)
}

// connErrors is the writer under a ConnectionErrorLog: Go's server writes
// it one error a line.
type connErrors struct {
	log  *slog.Logger
	code string
	now  func() time.Time

	mu   sync.Mutex
	seen map[string]*connErrorSeen
	// others is the allowance the errors of kinds and hosts not
	// remembered share while seen is full.
	others connErrorSeen
}

// connErrorSeen is one kind of error from one host: when it was last said,
// and those not said since, the last of them kept to say when it is
// forgotten.
type connErrorSeen struct {
	said       time.Time
	suppressed int
	last       string
}

func newConnErrors(l *slog.Logger, code string, now func() time.Time) *connErrors {
	return &connErrors{log: l, code: code, now: now, seen: make(map[string]*connErrorSeen)}
}

func (c *connErrors) Write(p []byte) (int, error) {
	msg := strings.TrimSuffix(string(p), "\n")
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	key := connErrorKey(msg)
	e, ok := c.seen[key]
	if !ok {
		if len(c.seen) >= connErrorKeys {
			c.forgetQuiet(now)
		}
		if len(c.seen) < connErrorKeys {
			// A kind not remembered is said at once.
			c.seen[key] = &connErrorSeen{said: now}
			c.warn(msg, 0)
			return len(p), nil
		}
		e = &c.others
	}
	if now.Sub(e.said) < connErrorEvery {
		e.suppressed++
		e.last = msg
		return len(p), nil
	}
	c.warn(msg, e.suppressed)
	e.said, e.suppressed, e.last = now, 0, ""
	return len(p), nil
}

// forgetQuiet forgets the kinds said connErrorEvery ago or more, which
// would be said at their next error anyway, saying the last of those not
// said of each with the count of the others.
func (c *connErrors) forgetQuiet(now time.Time) {
	for key, e := range c.seen {
		if now.Sub(e.said) < connErrorEvery {
			continue
		}
		if e.suppressed > 0 {
			c.warn(e.last, e.suppressed-1)
		}
		delete(c.seen, key)
	}
}

func (c *connErrors) warn(msg string, suppressed int) {
	attrs := []any{slog.String("code", c.code)}
	if suppressed > 0 {
		attrs = append(attrs, slog.Int("suppressed", suppressed))
	}
	c.log.Warn(msg+refusedCertificateHint(msg), attrs...)
}

// certificateAlerts are the TLS alerts a client sends when it refuses the
// server's certificate, as Go's server reports them ("remote error: tls:
// bad certificate"): Go's client sends bad certificate for most refusals.
var certificateAlerts = []string{
	"bad certificate", "unknown certificate authority", "expired certificate", "unknown certificate",
	"unsupported certificate", "revoked certificate",
}

// refusedCertificateHint says, for a handshake the client ended with a
// certificate alert, that it was the client that refused this listener's
// certificate and where to look: the alert alone reads as if the server
// had found a certificate bad, and says nothing of why.
func refusedCertificateHint(msg string) string {
	_, alert, ok := strings.Cut(msg, "remote error: tls: ")
	if !ok || !slices.Contains(certificateAlerts, alert) {
		return ""
	}
	return " (the client refused this listener's certificate: it does not trust the authority that signed it, the certificate is not for the name the client used, " +
		"or the client's clock puts it outside its validity; the client's own log says which)"
}

// handshakeFrom starts the line of Go's server for a failed TLS handshake,
// followed by the remote address and the reason.
const handshakeFrom = "http: TLS handshake error from "

// connErrorKey is the kind and remote host of the error line msg: a
// failed handshake's reason from the remote address's host, its port left
// out (each retry comes from a new one); any other line as it is.
func connErrorKey(msg string) string {
	rest, ok := strings.CutPrefix(msg, handshakeFrom)
	if !ok {
		return msg
	}
	addr, reason, ok := strings.Cut(rest, ": ")
	if !ok {
		return msg
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return msg
	}
	// A reason may name the connection (read tcp A->B: reset by peer).
	return host + " " + strings.ReplaceAll(reason, addr, host)
}
