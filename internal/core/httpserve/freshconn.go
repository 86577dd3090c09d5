package httpserve

import (
	"net"
	"net/http"
	"sync"
)

// freshConns are the connections a server accepted that have not yet
// brought a request. Browsers open such connections ahead of need, and
// Go's client keeps one it dialled but did not use; net/http's Shutdown
// counts them idle only after five seconds, so without this a stop waits
// that long for nothing whenever a browser is open on the console, and a
// stop bounded by five seconds fails as not clean. No request on them is
// lost: none was read, and the stopping server would refuse one anyway.
type freshConns struct {
	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	stopping bool
}

func newFreshConns() *freshConns {
	return &freshConns{conns: map[net.Conn]struct{}{}}
}

// track is the server's ConnState hook: a connection is fresh from its
// accept until its first request is read (or it closes or is hijacked).
func (f *freshConns) track(c net.Conn, st http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case st != http.StateNew:
		delete(f.conns, c)
	case f.stopping:
		// Accepted as the stop closed the listener.
		_ = c.Close()
	default:
		f.conns[c] = struct{}{}
	}
}

// closeAll closes every fresh connection, and any accepted from now on;
// Shutdown runs it once it stopped accepting.
func (f *freshConns) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopping = true
	for c := range f.conns {
		_ = c.Close()
	}
	clear(f.conns)
}
