package agent

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/netaddr"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// Client timeouts and retry pacing.
const (
	// requestTimeout bounds one request other than a pull.
	requestTimeout = 10 * time.Second
	// pullSlack is how much longer than its long-poll a pull may take.
	pullSlack = 10 * time.Second
	// minLeaseTry is the least time one send of a lease-bound request is
	// given (see tryTimeout).
	minLeaseTry = 200 * time.Millisecond
	// maxOpenSends is how many sends of one lease-bound request may be
	// open at once before another goes only to a server holding none of
	// them (see sendBeside): so a replica holds at most the first,
	// awaited until the lease's kill point, and the one sent beside it
	// once half of that passed. Each later send has
	// half the time of the one before, so a third would have a quarter of
	// what was left (0.43 s at the shortest lease, 3 s, whose renewal has
	// 1.7 s to the kill point), less than a replica slow on every request
	// takes (a fifth of the lease, 0.6 s), which answers the first send
	// in time anyway: it could only serve a replica that lost two sends
	// in a row and answers the third at once. Unbounded, the halving down
	// to minLeaseTry held up to five sends of a renewal open on a replica
	// that hangs, a connection (and a file descriptor, on both sides)
	// each, for every command the worker runs.
	maxOpenSends = 2
	// stallSlack is how far past its own limit a send may end while the
	// worker runs as it should: the limit's timer fires, and the goroutine
	// waiting on the send wakes, within it even on a loaded machine. A
	// send that took longer was not kept waiting by a replica but by the
	// worker itself: frozen (SIGSTOP, a paused container or VM),
	// suspended, or starved of CPU for about that long.
	stallSlack = 2 * time.Second
	backoffMin = 100 * time.Millisecond
	backoffMax = 2 * time.Second
	// maxReply caps a reply body: a grant carries at most a stored command.
	maxReply = 4 << 20
)

// Error is a reply the ingress refused with: retrying the same request
// cannot change it.
type Error struct {
	Status  int
	Code    string
	Message string
	// server is the server that refused (see Client.refuser).
	server uint64
}

func (e *Error) Error() string {
	return fmt.Sprintf("the replica refused the request (%d %s): %s", e.Status, e.Code, e.Message)
}

// notIngress is an answer that is not the worker ingress's own: most often
// the address is a replica's API, or a proxy answering with its error page
// (a 502 while the replica behind it restarts). No replica refused
// anything, so it is transient, as a network failure is: the request goes
// to the next --server, and a running command keeps its lease clock
// instead of being killed as if its renewal had been refused.
//
// tlsOnly is the answer of an address that serves HTTPS to a --server
// written http://: Go's TLS server answers a plain request 400 with a
// line saying so, and the fix is the scheme, not the port.
type notIngress struct {
	status  int
	tlsOnly bool
}

// plainToTLS is the body Go's HTTPS server answers a plain HTTP request
// with.
const plainToTLS = "Client sent an HTTP request to an HTTPS server"

func (e notIngress) Error() string {
	if e.tlsOnly {
		return "the address serves HTTPS, but --server names it with http://: write https:// (and give --ca-file the authority of a private certificate)"
	}
	return fmt.Sprintf("the address answered %d %s, not as a worker ingress: give --server the replicas' --worker-addr (default %s), not their API's --http-addr",
		e.status, http.StatusText(e.status), workerproto.DefaultIngressAddr)
}

// Code returns err's ingress error code, or "" when err is no refusal.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// Client talks to the worker ingress of any replica. Every request carries
// the bearer credential; a request that failed on the network, timed out,
// or got 503/429 is sent again, the same bytes, with backoff, until its
// context ends — so a retried pull repeats its offer id and token and gets
// the grants of the first one. With several servers, a transient failure
// moves every later request to the next one: any replica answers any
// worker, and a replay on another replica gets the same answer.
type Client struct {
	bases      []*url.URL
	current    atomic.Uint64
	credential string
	http       *http.Client
	// moved is closed, and replaced, at each failover (under mu, after
	// current moved), so a goroutine waiting for the client to leave a
	// server cannot miss the move.
	mu    sync.Mutex
	moved chan struct{}
	// reach, when set, hears of every send that got an answer or none.
	reach *reachability
}

// NewClient checks servers, one URL or several separated by commas (each
// https://, or http:// to a loopback address only), and builds a client
// with TLS verification on: against roots, or the system's certificate
// authorities when roots is nil.
func NewClient(servers, credential string, maxConns int, roots *x509.CertPool) (*Client, error) {
	bases, err := parseServers(servers)
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = httpserve.TLSConfig()
	tr.TLSClientConfig.RootCAs = roots
	tr.MaxIdleConnsPerHost = maxConns + 4
	tr.ResponseHeaderTimeout = 0 // each request has its own deadline
	return &Client{bases: bases, credential: credential, http: &http.Client{Transport: tr}, moved: make(chan struct{})}, nil
}

// LoadCAFile reads the PEM certificates of the authorities a worker trusts
// for the replicas' worker ingress (e.g. a private CA, or a replica's own
// self-signed certificate), instead of the system's.
func LoadCAFile(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--ca-file: %w; give the PEM file of the certificate authority that signed the replicas' --worker-tls-cert", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--ca-file %s holds no PEM certificate (-----BEGIN CERTIFICATE-----); give the certificate authority's certificate, not a key", path)
	}
	return pool, nil
}

// parseServers parses the comma-separated ingress URLs of --server.
func parseServers(servers string) ([]*url.URL, error) {
	var bases []*url.URL
	for _, server := range strings.Split(servers, ",") {
		u, err := parseServer(strings.TrimSpace(server))
		if err != nil {
			return nil, err
		}
		bases = append(bases, u)
	}
	return bases, nil
}

func parseServer(server string) (*url.URL, error) {
	u, err := url.Parse(server)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("--server %q: want the worker ingress URL of a replica, e.g. https://replica.example:8081 (several: separated by commas)", server)
	}
	if u.Scheme == "http" && !netaddr.IsLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("--server %q: plain http is accepted only to a loopback address; use https:// (the credential must not cross a network in clear)", server)
	}
	if u.User != nil {
		return nil, fmt.Errorf("--server: the URL must not hold a user or password; the credential comes from --credential-file")
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

// serverList is the ingress URLs, for logs, as one comma-separated
// string as --server takes them: a log field keeps one type, and reads as
// written in text format too, where a slice prints as Go's [a b].
func (c *Client) serverList() string {
	out := make([]string, len(c.bases))
	for i, u := range c.bases {
		out[i] = u.Redacted()
	}
	return strings.Join(out, ",")
}

// server is the URL requests go to now.
func (c *Client) server() (uint64, *url.URL) {
	i := c.current.Load()
	return i, c.bases[i%uint64(len(c.bases))]
}

// failover moves later requests to the next server, unless a concurrent
// request already moved them away from the failed one.
func (c *Client) failover(failed uint64) {
	if len(c.bases) > 1 && c.current.CompareAndSwap(failed, failed+1) {
		c.mu.Lock()
		close(c.moved)
		c.moved = make(chan struct{})
		c.mu.Unlock()
	}
}

// refuser is the server that refused with err (as an index that movedFrom
// takes) and its URL, for logs; ok is false when err is no refusal.
func (c *Client) refuser(err error) (server uint64, url string, ok bool) {
	var e *Error
	if !errors.As(err, &e) {
		return 0, "", false
	}
	return e.server, c.bases[e.server%uint64(len(c.bases))].Redacted(), true
}

// movedFrom is closed once later requests go to another server than
// server (at once if they already do).
func (c *Client) movedFrom(server uint64) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current.Load() != server {
		gone := make(chan struct{})
		close(gone)
		return gone
	}
	return c.moved
}

// Close drops idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// ReadCredential reads a credential file, which must be readable by its
// owner only. A file to fix (its mode, owner or content) is refused as
// invalid input: the worker exits 2.
func ReadCredential(path string) (string, error) {
	f, err := os.Open(path) //nolint:gosec // G703: the operator's own --credential-file, read with the operator's rights
	if err != nil {
		return "", fmt.Errorf("--credential-file: %w; create it with the credential `ql workers create` printed, mode 0600", err)
	}
	defer f.Close() //nolint:errcheck // read only
	info, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("--credential-file %s: %w", path, err)
	}
	if info.Mode().Perm()&0o077 != 0 {
		return "", qlerror.New(qlerror.Invalid, "credential file %s is readable by group or others (mode %04o); run chmod 600 %s", path, info.Mode().Perm(), path)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return "", qlerror.New(qlerror.Invalid, "credential file %s is owned by uid %d, not by this worker's user (uid %d); run chown %d %s", path, st.Uid, os.Geteuid(), os.Geteuid(), path)
	}
	data, err := io.ReadAll(io.LimitReader(f, 4<<10))
	if err != nil {
		return "", fmt.Errorf("--credential-file %s: %w", path, err)
	}
	cred := strings.TrimSpace(string(data))
	if !strings.HasPrefix(cred, workerproto.CredentialPrefix) || strings.ContainsAny(cred, " \t\r\n") {
		return "", qlerror.New(qlerror.Invalid, "credential file %s does not hold a worker credential (one line starting %s, as `ql workers create` prints it)", path, workerproto.CredentialPrefix)
	}
	return cred, nil
}

// Register opens a session.
func (c *Client) Register(ctx context.Context, req workerproto.RegisterRequest) (workerproto.RegisterReply, error) {
	var out workerproto.RegisterReply
	return out, c.call(ctx, workerproto.PathRegister, requestTimeout, req, &out, nil)
}

// Heartbeat keeps the session alive.
func (c *Client) Heartbeat(ctx context.Context, req workerproto.HeartbeatRequest) (workerproto.HeartbeatReply, error) {
	var out workerproto.HeartbeatReply
	return out, c.call(ctx, workerproto.PathHeartbeat, requestTimeout, req, &out, nil)
}

// Pull asks for grants, long-polling up to req.WaitMs. sent is when the
// request that got the reply was sent: a grant's lease counts from it.
// Not from the first send: after a replica died mid long-poll, the pull
// sent again to another replica is answered with leases as long as the
// database has left at that answer (a fresh grant's whole length, a
// replayed one's remainder), so counting from the last send still ends
// the worker's copy no later than the lease, while counting from the
// first would spend the dead replica's long-poll of the lease before the
// command could start.
func (c *Client) Pull(ctx context.Context, req workerproto.PullRequest) (reply workerproto.PullReply, sent time.Time, err error) {
	err = c.call(ctx, workerproto.PathPull, time.Duration(req.WaitMs)*time.Millisecond+pullSlack, req, &reply, &sent)
	return reply, sent, err
}

// leaseBound is the timeout of a start and a renewal: their context ends
// with the lease, each send is awaited until then, and the next goes out
// beside it once its share of what is left has passed (see sendBeside).
const leaseBound time.Duration = -1

// wholeBound is the timeout of a log send and of a completion, whose
// context ends at the lease's kill point: one send gets all of that (at
// most requestTimeout). The attempt's renewer keeps the lease beside them,
// so no renewal waits for them, and a send cut short is sent again, to
// the next replica, under the lease renewed meanwhile: keeping half back
// for the next replica, as a renewal must, protects nothing here, and
// half of what was left was less than a slow replica's answer (0.6 s at
// a 3 s lease), so every send was cut.
const wholeBound time.Duration = -2

// tryTimeout bounds one send of a request whose whole is bounded by ctx
// (for a whole-bound one see wholeBound). A lease-bound send's share is
// half of the time left before ctx's deadline (at least minLeaseTry, at
// most requestTimeout), after which the request is sent again beside it:
// a replica that accepts the request and never answers (frozen, hung)
// must not be the only one asked until the end of the lease, or the
// worker could not fail over to the next replica and renew there in
// time. A fixed share cannot do it: it would be longer than the whole of
// a short lease (3 s at least), or send a long one's requests again
// needlessly soon. Half leaves the next replica as long as the hung one
// had.
func tryTimeout(ctx context.Context, timeout time.Duration) time.Duration {
	if timeout != leaseBound && timeout != wholeBound {
		return timeout
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		return requestTimeout
	}
	if timeout == wholeBound {
		return min(requestTimeout, max(minLeaseTry, time.Until(deadline)))
	}
	return min(requestTimeout, max(minLeaseTry, time.Until(deadline)/2))
}

// Start acknowledges a grant just before its spawn.
func (c *Client) Start(ctx context.Context, req workerproto.StartRequest) (workerproto.LeaseReply, error) {
	var out workerproto.LeaseReply
	return out, c.call(ctx, workerproto.PathStart, leaseBound, req, &out, nil)
}

// Renew extends a lease.
func (c *Client) Renew(ctx context.Context, req workerproto.RenewRequest) (workerproto.LeaseReply, error) {
	var out workerproto.LeaseReply
	return out, c.call(ctx, workerproto.PathRenew, leaseBound, req, &out, nil)
}

// Log appends a chunk of output.
func (c *Client) Log(ctx context.Context, req workerproto.LogRequest) (workerproto.LogReply, error) {
	var out workerproto.LogReply
	return out, c.call(ctx, workerproto.PathLog, wholeBound, req, &out, nil)
}

// Complete reports an attempt's end. ended, when not zero, is when the
// command ended on this worker's monotonic clock: every send, each one
// after a transient failure too, says how long before it that was
// (EndedMsAgo), so the replica records the command's own end however
// late the report reaches it. Zero leaves the field out (an end not
// known, or a replica older than the field): the end is then when the
// replica accepts the report.
func (c *Client) Complete(ctx context.Context, req workerproto.CompleteRequest, ended time.Time) (workerproto.CompleteReply, error) {
	var out workerproto.CompleteReply
	return out, c.send(ctx, workerproto.PathComplete, wholeBound, func(began time.Time) any {
		if !ended.IsZero() {
			req.EndedMsAgo = max(began.Sub(ended).Milliseconds(), 0)
		}
		return req
	}, &out, nil)
}

// GiveBack returns a grant the worker will not start.
func (c *Client) GiveBack(ctx context.Context, req workerproto.GiveBackRequest) (workerproto.GiveBackReply, error) {
	var out workerproto.GiveBackReply
	return out, c.call(ctx, workerproto.PathGiveBack, requestTimeout, req, &out, nil)
}

// End ends the session of a worker that stops cleanly.
func (c *Client) End(ctx context.Context, req workerproto.EndRequest) (workerproto.EndReply, error) {
	var out workerproto.EndReply
	return out, c.call(ctx, workerproto.PathEnd, requestTimeout, req, &out, nil)
}

// call POSTs req to path and decodes the reply into out, sending the same
// body again after a transient failure until ctx ends; each send is
// bounded by timeout (see tryTimeout for leaseBound). sent, when not nil,
// is set to when the request that got the reply was sent.
func (c *Client) call(ctx context.Context, path string, timeout time.Duration, req, out any, sent *time.Time) error {
	return c.send(ctx, path, timeout, func(time.Time) any { return req }, out, sent)
}

// send is call with the request made for each send by at, given when the
// send begins: a request that says how long ago something happened counts
// it again for every send.
func (c *Client) send(ctx context.Context, path string, timeout time.Duration, at func(began time.Time) any, out any, sent *time.Time) error {
	if timeout == leaseBound {
		return c.sendBeside(ctx, path, at, out, sent)
	}
	wait := backoffMin
	for {
		i, base := c.server()
		began := time.Now()
		if sent != nil {
			*sent = began
		}
		body, err := json.Marshal(at(began))
		if err != nil {
			return err
		}
		limit := tryTimeout(ctx, timeout)
		err = c.once(ctx, base, path, limit, body, out)
		c.observe(ctx, base, err, began, limit)
		if err == nil || !transient(err) {
			var e *Error
			if errors.As(err, &e) {
				e.server = i
			}
			return err
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			// The caller gave the request up (an attempt's renewer
			// stopped once the attempt completed): that says nothing of
			// this server, so the worker stays on it.
			return &gaveUp{path: path, cause: context.Cause(ctx), last: err}
		}
		c.failover(i)
		// Jitter spreads the retries of many workers after a replica
		// restart; it guards nothing.
		pause := wait/2 + rand.N(wait/2+1) //nolint:gosec // G404: pacing, not security
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return &gaveUp{path: path, cause: context.Cause(ctx), last: err}
		case <-t.C:
		}
		wait = min(2*wait, backoffMax)
	}
}

// leaseTry is what one send of a lease-bound request got: its reply
// decoded into a value of its own (reply), or err.
type leaseTry struct {
	seq    int
	server uint64
	began  time.Time
	reply  reflect.Value
	err    error
}

// sendBeside sends a lease-bound request (a start, a renewal) until one
// of its sends is answered or ctx ends. Each send has a share of what is
// left before ctx's deadline (see tryTimeout); once its share has passed
// unanswered, the same request is sent again — to the next server when
// there are several — beside it, not instead of it: the earlier send is
// still awaited until the deadline, and the first answer of any send is
// the request's. A replica that answers every request slowly but within
// the lease thus keeps it: its answer to the first send counts however
// long after that send's share it comes, where cutting each send at its
// share left the sends after it ever less time (a half, a quarter, …),
// none enough for that replica, and the lease was lost, the replica
// answering all along. A replica that hangs is still left in time: the next
// send goes out when the share has passed. The replica takes the same
// request twice as one (a renewal replayed under the version it replaced
// gets the same answer), so whichever send it answers first wins.
//
// A send goes to a server already holding one of the request's sends only
// while fewer than maxOpenSends are open (see there); past that, it waits
// for one of them to end. A server holding none of them is always sent
// to, so the next replica is never kept from the request.
func (c *Client) sendBeside(ctx context.Context, path string, at func(began time.Time) any, out any, sent *time.Time) error {
	tries, stop := context.WithCancel(ctx)
	defer stop()
	answers := make(chan leaseTry)
	wait := backoffMin
	var last error
	// latest is the number of the latest send; shareRunning says the
	// next timer is its share, not a pause after a failure.
	latest, shareRunning := 0, false
	var latestServer uint64
	// open counts the sends not ended yet, in all and on each server (by
	// its place in c.bases); held says a send is due that the bound holds
	// back until one of them ends.
	open, openOn := 0, make([]int, len(c.bases))
	held := false
	next := time.NewTimer(0)
	defer next.Stop()
	for {
		select {
		case <-next.C:
			if ctx.Err() != nil {
				// Ended as the timer fired: no send could be answered now.
				continue
			}
			if shareRunning {
				// The latest send's share passed unanswered: it is left in
				// flight, and the next one goes to the next server.
				c.failover(latestServer)
				shareRunning = false
			}
			i, base := c.server()
			on := i % uint64(len(c.bases))
			if openOn[on] > 0 && open >= maxOpenSends {
				held = true
				continue
			}
			began := time.Now()
			body, err := json.Marshal(at(began))
			if err != nil {
				return err
			}
			latest++
			latestServer, shareRunning = i, true
			open++
			openOn[on]++
			seq, whole := latest, tryTimeout(ctx, wholeBound)
			go func() {
				reply := reflect.New(reflect.TypeOf(out).Elem())
				err := c.once(tries, base, path, whole, body, reply.Interface())
				c.observe(tries, base, err, began, whole)
				select {
				case answers <- leaseTry{seq: seq, server: i, began: began, reply: reply, err: err}:
				case <-tries.Done():
				}
			}()
			next.Reset(tryTimeout(ctx, leaseBound))
		case a := <-answers:
			open--
			openOn[a.server%uint64(len(c.bases))]--
			if a.err == nil {
				reflect.ValueOf(out).Elem().Set(a.reply.Elem())
				if sent != nil {
					*sent = a.began
				}
				return nil
			}
			if !transient(a.err) {
				var e *Error
				if errors.As(a.err, &e) {
					e.server = a.server
				}
				return a.err
			}
			last = a.err
			if errors.Is(ctx.Err(), context.Canceled) {
				// See send: the caller gave the request up.
				return &gaveUp{path: path, cause: context.Cause(ctx), last: a.err}
			}
			c.failover(a.server)
			if (a.seq == latest && shareRunning) || held {
				// The latest send failed before its share passed, or a send
				// the bound held back may go now one has ended: the next
				// goes out after a pause, as send's do.
				shareRunning, held = false, false
				next.Reset(wait/2 + rand.N(wait/2+1)) //nolint:gosec // G404: pacing, not security
				wait = min(2*wait, backoffMax)
			}
		case <-ctx.Done():
			if last == nil {
				last = errNoAnswer
			}
			return &gaveUp{path: path, cause: context.Cause(ctx), last: last}
		}
	}
}

// errNoAnswer is the last failure of a lease-bound request none of whose
// sends failed before its deadline: they were all still unanswered.
var errNoAnswer = errors.New("no send was answered")

// gaveUp is a request whose context ended while it was being sent again
// after transient failures. It wraps the context's cause only: the last
// failure was transient, and the caller must not take it for a refusal
// (errors.As finds no *Error in it); registerHint reads it to say what
// to check.
type gaveUp struct {
	path        string
	cause, last error
}

func (g *gaveUp) Error() string {
	return fmt.Sprintf("%s: %v (last failure: %v)", g.path, g.cause, g.last)
}

func (g *gaveUp) Unwrap() error { return g.cause }

// stalledSince reports whether the worker was found stalled itself after
// t (see stallSlack).
func (c *Client) stalledSince(t time.Time) bool {
	return c.reach != nil && c.reach.stalledSince(t)
}

// observe tells reach whether a send to base, begun at began and bounded
// by limit, was answered. A send its caller gave up on (a drain, a stop)
// says nothing of the server; one whose caller's deadline passed got no
// answer in time. One that took well past its own limit says nothing of
// the server either: the send's own deadline would have ended it, so the
// worker itself was stalled meanwhile (see stallSlack).
func (c *Client) observe(ctx context.Context, base *url.URL, err error, began time.Time, limit time.Duration) {
	var foreign notIngress
	took := time.Since(began)
	switch {
	case c.reach == nil:
	case took > limit+stallSlack:
		c.reach.stalled(took, limit, began, time.Now())
		if err == nil || !transient(err) {
			c.reach.reached(base.Redacted(), time.Now())
		}
	case errors.As(err, &foreign):
		c.reach.foreign(base.Redacted(), err, time.Now())
	case Code(err) == workerproto.CodeReplicaStopping:
		c.reach.stopping(base.Redacted(), len(c.bases) > 1, time.Now())
	case err == nil || !transient(err):
		c.reach.reached(base.Redacted(), time.Now())
	case errors.Is(ctx.Err(), context.Canceled):
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && time.Since(began) < minLeaseTry:
		// The caller's own deadline left this send less than a send's
		// least time (a goroutine woken late on a busy machine): no
		// replica could have answered it, so it says nothing of them.
	default:
		now := time.Now()
		c.reach.failed(base.Redacted(), err, began, now, now.Sub(began))
	}
}

// transient reports whether err says nothing of the request itself, so
// that the same request may be sent again, to the next server: a network
// failure, no answer in time, a 503 or a 429, an answer that is no
// ingress's own, and an internal error of the replica (500: a failure the
// worker cannot act on, which another replica, or the same one later, may
// not have): taken for a refusal, it would kill a running command whose
// lease nobody refused.
func transient(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return e.Status == http.StatusServiceUnavailable || e.Status == http.StatusTooManyRequests || e.Status == http.StatusInternalServerError
	}
	return true
}

func (c *Client) once(ctx context.Context, base *url.URL, path string, timeout time.Duration, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	u := *base
	u.Path += path
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.credential)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		// *url.Error names the URL and the cause, never the headers.
		return err
	}
	defer resp.Body.Close() //nolint:errcheck // read to the end or abandoned
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReply))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var e workerproto.Error
		if json.Unmarshal(data, &e) != nil || e.Code == "" {
			return notIngress{status: resp.StatusCode,
				tlsOnly: base.Scheme == "http" && resp.StatusCode == http.StatusBadRequest && bytes.Contains(data, []byte(plainToTLS))}
		}
		return &Error{Status: resp.StatusCode, Code: e.Code, Message: e.Message}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s: the replica's reply is not the expected JSON: %w", path, err)
	}
	return nil
}
