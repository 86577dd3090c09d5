package faults

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy is a TCP proxy for the PostgreSQL wire protocol that can lose the
// reply to one COMMIT: armed, it forwards the next COMMIT a client sends,
// waits until the server has answered it (so the server really finished the
// commit, one way or the other), swallows that answer and closes both
// sides. The client sees its connection die while waiting for the reply,
// which is exactly a COMMIT whose outcome it cannot know.
//
// It understands just enough of the protocol for that: message framing in
// both directions, simple Query, and Parse/Bind/Execute for the extended
// protocol. It refuses TLS (answers 'N' to SSLRequest and GSSENCRequest
// itself), so it works with sslmode=disable or prefer, not require.
type Proxy struct {
	listener net.Listener
	upstream string

	armed  atomic.Pointer[chan Drop]
	cutOn  atomic.Pointer[cutArm]
	holdOn atomic.Pointer[Hold]
	// stop is closed by Close; a held connection waits on it too.
	stop chan struct{}

	mu     sync.Mutex
	conns  map[*proxyConn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Drop records one lost COMMIT reply.
type Drop struct {
	// Statement is the COMMIT as the client sent it.
	Statement string
	// Protocol is "simple" (Query message) or "extended" (Execute of a
	// parsed COMMIT).
	Protocol string
	// ServerReply is what the server answered and the client never saw:
	// the command tag "COMMIT", "ROLLBACK" when the transaction had already
	// failed, or "error: <message>".
	ServerReply string
	// At is when the proxy cut the connection.
	At time.Time
}

// Protocol message codes and limits (PostgreSQL protocol 3).
const (
	sslRequestCode    = 80877103
	gssencRequestCode = 80877104
	// maxMessage bounds one message so a framing bug fails instead of
	// allocating gigabytes; the server's own limit for most is 1 GB.
	maxMessage = 1 << 30
	// dialTimeout bounds connecting to the upstream server, which is local.
	dialTimeout = 10 * time.Second
)

// StartProxy listens on a free loopback port and forwards every connection
// to upstream (host:port).
func StartProxy(upstream string) (*Proxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faults: proxy listen: %w", err)
	}
	p := &Proxy{listener: l, upstream: upstream, conns: map[*proxyConn]struct{}{}, stop: make(chan struct{})}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.listener.Addr().String() }

// ArmCommitLoss arms the proxy for one COMMIT on any of its connections and
// returns a channel that receives the Drop once the reply has been
// swallowed and the connection cut. Arming again replaces an unfired arm.
func (p *Proxy) ArmCommitLoss() <-chan Drop {
	ch := make(chan Drop, 1)
	p.armed.Store(&ch)
	return ch
}

// cutArm is one armed ArmCut.
type cutArm struct {
	statement string
	cut       chan string
}

// ArmCut arms the proxy to break the next connection that sends statement
// as a simple-protocol Query (compared like isCommit: trimmed, any case, no
// trailing semicolon): the statement is never forwarded and both sides are
// closed, so the client's statement fails exactly as on a broken link. The
// channel receives the statement once the connection is cut. Arming again
// replaces an unfired arm.
func (p *Proxy) ArmCut(statement string) <-chan string {
	a := &cutArm{statement: normalStatement(statement), cut: make(chan string, 1)}
	p.cutOn.Store(a)
	return a.cut
}

// Hold is one armed ArmHold.
type Hold struct {
	statement string
	held      chan string
	release   chan struct{}
	once      sync.Once
}

// ArmHold arms the proxy to freeze the next connection whose client sends
// statement, as a simple-protocol Query or as the text of a Parse (compared
// like ArmCut): that message and everything the client sends after it are
// held back, as if the client process had stopped right before sending
// them. The server sees the session idle — idle in transaction when one is
// open — and the client waits for replies that cannot come. Held receives
// the statement once it is held; Release forwards it and resumes. Arming
// again replaces an unfired arm.
func (p *Proxy) ArmHold(statement string) *Hold {
	h := &Hold{statement: normalStatement(statement), held: make(chan string, 1), release: make(chan struct{})}
	p.holdOn.Store(h)
	return h
}

// Held receives the held statement once a connection is frozen on it.
func (h *Hold) Held() <-chan string { return h.held }

// Release lets the held connection go on; calling it again does nothing.
func (h *Hold) Release() { h.once.Do(func() { close(h.release) }) }

// holdIfArmed freezes this connection when sql is the armed statement,
// until the hold is released (true) or the proxy is closed (false).
func (c *proxyConn) holdIfArmed(sql string) bool {
	h := c.proxy.holdOn.Load()
	if h == nil || normalStatement(sql) != h.statement || !c.proxy.holdOn.CompareAndSwap(h, nil) {
		return true
	}
	h.held <- sql
	select {
	case <-h.release:
		return true
	case <-c.proxy.stop:
		return false
	}
}

// Close stops accepting, cuts every connection and waits for the proxy's
// goroutines to end. Closing again does nothing.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.stop)
	conns := slices.Collect(maps.Keys(p.conns))
	p.mu.Unlock()
	for _, c := range conns {
		c.cut()
	}
	err := p.listener.Close()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.listener.Accept()
		if err != nil {
			return // closed
		}
		server, err := net.DialTimeout("tcp", p.upstream, dialTimeout)
		if err != nil {
			_ = client.Close()
			continue
		}
		c := &proxyConn{proxy: p, client: client, server: server}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			c.cut()
			return
		}
		p.conns[c] = struct{}{}
		p.mu.Unlock()
		p.wg.Add(2)
		go c.frontend()
		go c.backend()
	}
}

// proxyConn is one client connection and its server connection.
type proxyConn struct {
	proxy          *Proxy
	client, server net.Conn

	// losing holds the arm channel once this connection has forwarded the
	// armed COMMIT; from then on nothing more reaches the client.
	losing    atomic.Pointer[chan Drop]
	statement string // the COMMIT being lost; written before losing is set
	protocol  string

	cutOnce sync.Once
}

func (c *proxyConn) cut() {
	c.cutOnce.Do(func() {
		_ = c.client.Close()
		_ = c.server.Close()
		c.proxy.mu.Lock()
		delete(c.proxy.conns, c)
		c.proxy.mu.Unlock()
	})
}

// frontend pumps client → server, watching for the armed COMMIT.
func (c *proxyConn) frontend() {
	defer c.proxy.wg.Done()
	defer c.cut()
	r := bufio.NewReader(c.client)
	if err := c.startup(r); err != nil {
		return
	}
	// The COMMIT text of prepared statements and portals that are one, by
	// name ("" is the unnamed one), so an Execute can be recognised.
	commitStatements := map[string]string{}
	commitPortals := map[string]string{}
	for {
		typ, msg, err := readTyped(r)
		if err != nil {
			return
		}
		body := msg[5:]
		var statement, protocol string
		switch typ {
		case 'Q':
			q := cstring(body)
			if a := c.proxy.cutOn.Load(); a != nil && normalStatement(q) == a.statement && c.proxy.cutOn.CompareAndSwap(a, nil) {
				a.cut <- q
				return // the deferred cut closes both sides
			}
			if !c.holdIfArmed(q) {
				return
			}
			if isCommit(q) {
				statement, protocol = q, "simple"
			}
		case 'P':
			name, rest := splitCString(body)
			q := cstring(rest)
			if !c.holdIfArmed(q) {
				return
			}
			if isCommit(q) {
				commitStatements[name] = q
			} else {
				delete(commitStatements, name)
			}
		case 'B':
			portal, rest := splitCString(body)
			if q, ok := commitStatements[cstring(rest)]; ok {
				commitPortals[portal] = q
			} else {
				delete(commitPortals, portal)
			}
		case 'C':
			if len(body) > 0 && body[0] == 'S' {
				delete(commitStatements, cstring(body[1:]))
			} else if len(body) > 0 {
				delete(commitPortals, cstring(body[1:]))
			}
		case 'E':
			if q, ok := commitPortals[cstring(body)]; ok {
				statement, protocol = q, "extended"
			}
		}
		if statement != "" && c.losing.Load() == nil {
			if ch := c.proxy.armed.Swap(nil); ch != nil {
				c.statement, c.protocol = statement, protocol
				c.losing.Store(ch)
			}
		}
		if _, err := c.server.Write(msg); err != nil {
			return
		}
	}
}

// startup handles the untyped messages a session opens with: the proxy
// itself declines encryption requests, and forwards the StartupMessage (or a
// CancelRequest) that follows.
func (c *proxyConn) startup(r *bufio.Reader) error {
	for {
		var hdr [8]byte
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return err
		}
		n := binary.BigEndian.Uint32(hdr[:4])
		if n < 8 || n > maxMessage {
			return fmt.Errorf("faults: startup message length %d", n)
		}
		switch binary.BigEndian.Uint32(hdr[4:]) {
		case sslRequestCode, gssencRequestCode:
			if _, err := c.client.Write([]byte{'N'}); err != nil {
				return err
			}
			continue
		}
		msg := make([]byte, n)
		copy(msg, hdr[:])
		if _, err := io.ReadFull(r, msg[8:]); err != nil {
			return err
		}
		_, err := c.server.Write(msg)
		return err
	}
}

// backend pumps server → client; once this connection is losing a COMMIT
// it swallows everything until the server's ReadyForQuery, then cuts.
func (c *proxyConn) backend() {
	defer c.proxy.wg.Done()
	defer c.cut()
	r := bufio.NewReader(c.server)
	var reply string
	for {
		typ, msg, err := readTyped(r)
		if err != nil {
			return
		}
		ch := c.losing.Load()
		if ch == nil {
			if _, err := c.client.Write(msg); err != nil {
				return
			}
			continue
		}
		switch typ {
		case 'C':
			reply = cstring(msg[5:])
		case 'E':
			reply = "error: " + errorMessage(msg[5:])
		case 'Z':
			c.cut()
			*ch <- Drop{Statement: c.statement, Protocol: c.protocol, ServerReply: reply, At: time.Now()}
			return
		}
	}
}

// readTyped reads one typed message (type byte, int32 length including
// itself, body) and returns it whole, ready to forward.
func readTyped(r *bufio.Reader) (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n < 4 || n > maxMessage {
		return 0, nil, fmt.Errorf("faults: message %q length %d", hdr[0], n)
	}
	msg := make([]byte, 1+n)
	copy(msg, hdr[:])
	if _, err := io.ReadFull(r, msg[5:]); err != nil {
		return 0, nil, err
	}
	return hdr[0], msg, nil
}

// isCommit recognises the statements that end a transaction by committing
// it, as a driver sends them: one statement, any case, optional semicolon.
func isCommit(sql string) bool {
	words := strings.Fields(normalStatement(sql))
	if len(words) == 0 || len(words) > 2 || (words[0] != "commit" && words[0] != "end") {
		return false
	}
	return len(words) == 1 || words[1] == "work" || words[1] == "transaction"
}

// normalStatement is sql trimmed, lower-cased, without a trailing
// semicolon and with single spaces between words.
func normalStatement(sql string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.TrimSuffix(strings.TrimSpace(sql), ";"))), " ")
}

func cstring(b []byte) string {
	s, _ := splitCString(b)
	return s
}

func splitCString(b []byte) (string, []byte) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return string(b), nil
	}
	return string(b[:i]), b[i+1:]
}

// errorMessage extracts the M (message) field of an ErrorResponse.
func errorMessage(body []byte) string {
	for len(body) > 1 {
		code := body[0]
		var field string
		field, body = splitCString(body[1:])
		if code == 'M' {
			return field
		}
	}
	return "unknown"
}

// URL rewrites a connection URL to go through the proxy: same user,
// database and options, the proxy's address.
func (p *Proxy) URL(direct string) (string, error) {
	u, err := url.Parse(direct)
	if err != nil {
		return "", fmt.Errorf("faults: proxy URL: %w", err)
	}
	u.Host = p.Addr()
	return u.String(), nil
}
