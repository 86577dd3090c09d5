package faults

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// HTTPProxy stands between HTTP clients (workers) and one HTTP server (a
// replica's worker ingress) and breaks the link on demand:
//
//   - Partition: every new request is held and never forwarded, and the
//     replies of those in flight are lost; when the partition heals (or the
//     client gives up) a held connection is closed without a reply, as
//     after lost packets.
//   - ArmReplyLoss: the next reply on a path (that a filter accepts) is
//     read whole from the server (so the server really answered) and the
//     client's connection is closed without it.
//   - ArmHold: the next request on a path is held, not forwarded, until
//     released; a request whose client gave up meanwhile is never
//     forwarded, as a packet to a dead host.
//
// It counts the requests it forwarded per path, so a test can tell a
// replayed request from one that was never sent.
type HTTPProxy struct {
	listener net.Listener
	server   *http.Server
	upstream *url.URL
	client   *http.Client

	mu        sync.Mutex
	healed    chan struct{} // nil while connected; closed by Heal
	armed     map[string]*lossArm
	holds     map[string]*RequestHold
	forwarded map[string]int
	inFlight  map[string]int
}

// LostReply is one reply the client never saw.
type LostReply struct {
	Path   string
	Status int
	// Body is the server's reply body.
	Body []byte
}

// httpProxyTimeout bounds one forwarded request; a worker's long-poll pull
// lasts at most 20 s.
const httpProxyTimeout = time.Minute

// StartHTTPProxy listens on a free loopback port and forwards to upstream
// (http://host:port).
func StartHTTPProxy(upstream string) (*HTTPProxy, error) {
	u, err := url.Parse(upstream)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("faults: upstream %q is not an http URL", upstream)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faults: http proxy listen: %w", err)
	}
	p := &HTTPProxy{listener: l, upstream: u, armed: map[string]*lossArm{}, holds: map[string]*RequestHold{}, forwarded: map[string]int{}, inFlight: map[string]int{},
		client: &http.Client{Timeout: httpProxyTimeout, Transport: &http.Transport{}}}
	p.server = &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.server.Serve(l) }()
	return p, nil
}

// URL is the proxy's base URL.
func (p *HTTPProxy) URL() string { return "http://" + p.listener.Addr().String() }

// Partition holds every request from now on until Heal.
func (p *HTTPProxy) Partition() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.healed == nil {
		p.healed = make(chan struct{})
	}
}

// Heal ends a partition: held requests are dropped unanswered, new ones
// are forwarded again.
func (p *HTTPProxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.healed != nil {
		close(p.healed)
		p.healed = nil
	}
}

// lossArm is one armed ArmReplyLoss.
type lossArm struct {
	match func(body []byte) bool
	lost  chan LostReply
}

// ArmReplyLoss arms the proxy for the next reply on path whose body match
// accepts (nil: any); the channel receives the reply that was swallowed.
// Arming again replaces an unfired arm.
func (p *HTTPProxy) ArmReplyLoss(path string, match func(body []byte) bool) <-chan LostReply {
	a := &lossArm{match: match, lost: make(chan LostReply, 1)}
	p.mu.Lock()
	p.armed[path] = a
	p.mu.Unlock()
	return a.lost
}

// RequestHold is one armed ArmHold.
type RequestHold struct {
	held    chan struct{}
	release chan struct{}
	once    sync.Once
}

// ArmHold arms the proxy to hold the next request on path.
func (p *HTTPProxy) ArmHold(path string) *RequestHold {
	h := &RequestHold{held: make(chan struct{}), release: make(chan struct{})}
	p.mu.Lock()
	p.holds[path] = h
	p.mu.Unlock()
	return h
}

// Held closes once a request is held.
func (h *RequestHold) Held() <-chan struct{} { return h.held }

// Release forwards the held request, if its client still waits.
func (h *RequestHold) Release() { h.once.Do(func() { close(h.release) }) }

// Forwarded is how many requests on path reached the server.
func (p *HTTPProxy) Forwarded(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.forwarded[path]
}

// InFlight is how many requests on path were forwarded and are not
// answered yet (a long-poll waiting on the server, say).
func (p *HTTPProxy) InFlight(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.inFlight[path]
}

// Close stops the proxy and cuts every connection.
func (p *HTTPProxy) Close() error {
	p.Heal()
	err := p.server.Close()
	p.client.CloseIdleConnections()
	return err
}

func (p *HTTPProxy) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	healed := p.healed
	hold := p.holds[r.URL.Path]
	if healed == nil {
		delete(p.holds, r.URL.Path)
	}
	p.mu.Unlock()
	if healed != nil {
		select {
		case <-healed:
		case <-r.Context().Done():
		}
		drop(w)
		return
	}
	// Read first: the server notices a client that went away only once
	// the body was read.
	body, err := io.ReadAll(r.Body)
	if err != nil {
		drop(w)
		return
	}
	if hold != nil {
		close(hold.held)
		select {
		case <-hold.release:
		case <-r.Context().Done():
		}
		if r.Context().Err() != nil {
			drop(w)
			return
		}
	}
	u := *p.upstream
	u.Path, u.RawQuery = r.URL.Path, r.URL.RawQuery
	out, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		drop(w)
		return
	}
	out.Header = r.Header.Clone()
	p.mu.Lock()
	p.forwarded[r.URL.Path]++
	p.inFlight[r.URL.Path]++
	p.mu.Unlock()
	resp, err := p.client.Do(out)
	p.mu.Lock()
	p.inFlight[r.URL.Path]--
	p.mu.Unlock()
	if err != nil {
		drop(w)
		return
	}
	defer resp.Body.Close() //nolint:errcheck // read to the end below
	reply, err := io.ReadAll(resp.Body)
	if err != nil {
		drop(w)
		return
	}
	p.mu.Lock()
	partitioned := p.healed != nil
	lose := p.armed[r.URL.Path]
	if lose != nil && (lose.match == nil || lose.match(reply)) {
		delete(p.armed, r.URL.Path)
	} else {
		lose = nil
	}
	p.mu.Unlock()
	if partitioned {
		// The link broke while the server answered: the reply is lost.
		drop(w)
		return
	}
	if lose != nil {
		drop(w)
		lose.lost <- LostReply{Path: r.URL.Path, Status: resp.StatusCode, Body: reply}
		return
	}
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(reply)
}

// drop closes the client's connection without a reply.
func drop(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("faults: the proxy's connections must support hijacking")
	}
	conn, _, err := hj.Hijack()
	if err == nil {
		_ = conn.Close()
	}
}
