package httpserve

import (
	"context"
	"crypto/tls"
	"errors"
	"log"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Server is a bound HTTP server.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan error
}

// Connection limits of every QingLong HTTP server: a client that sends its
// headers slowly (slowloris) or idles is cut off instead of holding a
// connection and a goroutine for good.
const (
	ReadHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	writeTimeout      = MaxHandlerTime + 5*time.Second
	idleTimeout       = time.Minute
)

// MaxHeaderBytes is the most bytes of request line and headers a server
// reads (Go's default, made explicit): a handler may refuse less
// (httpapi.MaxHeaderSize) in its own words, which it can only do for a
// request the server read whole.
const MaxHeaderBytes = 1 << 20

// MaxHandlerTime is the longest a handler may take to produce its response;
// the write timeout leaves room for it, so a handler bounding its own work
// by this answers instead of being cut off mid-response.
const MaxHandlerTime = 10 * time.Second

// Listen binds addr at once, so /livez answers from the first moments of
// startup, and serves h in the background. Every server of every profile
// starts here, so all share the connection limits and the response headers.
func Listen(addr string, h http.Handler) (*Server, error) {
	return ListenWith(addr, h, Options{})
}

// Options adapt a server to a listener of its own.
type Options struct {
	// Flag names the setting of the address in the error when it cannot
	// be bound (default --http-addr).
	Flag string
	// TLS, when set, serves HTTPS only.
	TLS *tls.Config
	// WriteTimeout replaces the default for handlers that may hold a
	// request open longer than MaxHandlerTime (a long-poll); it must cover
	// the longest of them.
	WriteTimeout time.Duration
	// ErrorLog receives the server's connection-level errors (default:
	// the standard logger).
	ErrorLog *log.Logger
	// Listener, when set, is the address bound already (Bind), which the
	// server serves instead of binding addr itself.
	Listener net.Listener
}

// Bind binds addr, the setting flag, for a server started later with it
// as Options.Listener: a server binds its addresses before it creates or
// changes anything, so one that cannot take them fails having done
// nothing. The error names the address, the setting and what to do.
func Bind(addr, flag string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "cannot listen on %s (%s): another process listens there already; stop it, or choose a free address with %s", addr, flag, flag)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "cannot listen on %s (%s): no network interface of this host has that IP address; give one of its own addresses, or 0.0.0.0 for all of them, with %s", addr, flag, flag)
	case err != nil:
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "cannot listen on %s; choose a free address with %s", addr, flag)
	}
	return ln, nil
}

// ListenWith is Listen with options.
func ListenWith(addr string, h http.Handler, o Options) (*Server, error) {
	if o.Flag == "" {
		o.Flag = "--http-addr"
	}
	if o.WriteTimeout == 0 {
		o.WriteTimeout = writeTimeout
	}
	ln := o.Listener
	if ln == nil {
		var err error
		if ln, err = Bind(addr, o.Flag); err != nil {
			return nil, err
		}
	}
	if o.TLS != nil {
		ln = tls.NewListener(plainHTTPListener{ln}, o.TLS)
	}
	fresh := newFreshConns()
	s := &Server{
		srv: &http.Server{
			Handler:           noSniff(h),
			ReadHeaderTimeout: ReadHeaderTimeout,
			ReadTimeout:       readTimeout,
			WriteTimeout:      o.WriteTimeout,
			IdleTimeout:       idleTimeout,
			MaxHeaderBytes:    MaxHeaderBytes,
			TLSConfig:         o.TLS,
			ErrorLog:          o.ErrorLog,
			ConnState:         fresh.track,
		},
		ln:   ln,
		done: make(chan error, 1),
	}
	s.srv.RegisterOnShutdown(fresh.closeAll)
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the bound address (useful with port 0).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Shutdown stops accepting, waits for in-flight requests until ctx ends,
// then closes what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close() // the deadline passed; cut the stragglers
	}
	if serveErr := <-s.done; serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	return err
}

// noSniff stops browsers from guessing a response's type from its body, so
// text a task or a client put in a response is never run as a script.
func noSniff(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.ServeHTTP(w, r)
	})
}
