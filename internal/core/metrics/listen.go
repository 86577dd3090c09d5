package metrics

import (
	"net"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/httpserve"
)

// Path is where the metrics are served.
const Path = "/metrics"

// Listen serves m at Path on a listener of its own, with the connection
// limits of every QingLong HTTP server.
func Listen(addr string, m *Metrics) (*httpserve.Server, error) {
	return ListenOn(addr, nil, m)
}

// ListenOn is Listen on ln, addr bound already (httpserve.Bind); nil ln
// binds addr.
func ListenOn(addr string, ln net.Listener, m *Metrics) (*httpserve.Server, error) {
	return httpserve.ListenWith(addr, ListenerHandler(m), httpserve.Options{Flag: "--metrics-addr", Listener: ln})
}

// ListenerHandler is what a metrics listener serves: GET Path, and 404
// for anything else, a path the mux would otherwise answer with a
// redirect included (httpserve.MuxRedirects).
func ListenerHandler(m *Metrics) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET "+Path, m.Handler())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if httpserve.MuxRedirects(mux, r) {
			http.NotFound(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}
