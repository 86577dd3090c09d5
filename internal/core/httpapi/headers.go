package httpapi

import (
	"net/http"

	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// codeHeadersTooLarge is a request whose line and headers pass
// MaxHeaderSize (431).
const codeHeadersTooLarge qlerror.Code = "request_headers_too_large"

// MaxHeaderSize is the most bytes of request line and headers the API and
// the console take: far above any client's (a browser's cookies, a
// proxy's forwarding headers), and refused above it in JSON with its
// reason. The server reads up to httpserve.MaxHeaderBytes so that the
// refusal is the handler's: past that, Go's server answers 431 in plain
// text itself, before any handler.
const MaxHeaderSize = httpserve.MaxHeaderBytes / 16

// headerSize counts r's request line and headers as they came, as
// http.Server counts them against its MaxHeaderBytes: each header's name,
// value, ": " and line end, Host's included (which r keeps apart).
func headerSize(r *http.Request) int {
	n := len(r.Method) + 1 + len(r.RequestURI) + 1 + len(r.Proto) + 2
	if r.Host != "" {
		n += len("Host: ") + len(r.Host) + 2
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + 2 + len(v) + 2
		}
	}
	return n
}
