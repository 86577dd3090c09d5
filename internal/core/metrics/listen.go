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
	mux := http.NewServeMux()
	mux.Handle("GET "+Path, m.Handler())
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if httpserve.Unclean(r) {
			http.NotFound(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
	return httpserve.ListenWith(addr, h, httpserve.Options{Flag: "--metrics-addr", Listener: ln})
}
