package httpserve

import (
	"net/http"
	"path"
	"strings"
)

// Unclean reports whether r's path has a dot segment (/./, /../) or an
// empty one (//): Go's ServeMux answers such a path with a redirect to
// its cleaned form, sent before any handler runs, so without the
// handler's headers and without its checks (a token, a session). Every
// listener answers it as it answers a path it does not serve instead:
// no client has a reason to send one, and a redirect from
// /api/v1/../../etc/passwd tells a scanner what the server cleans. The
// path is the one the mux reads, escaped as it came; CONNECT's is left
// as it is by the mux, and here.
func Unclean(r *http.Request) bool {
	if r.Method == http.MethodConnect {
		return false
	}
	p := r.URL.EscapedPath()
	return p != cleaned(p)
}

// cleaned is p as ServeMux cleans it: rooted, its dot and empty segments
// resolved, a trailing slash kept.
func cleaned(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if strings.HasSuffix(p, "/") && np != "/" {
		np += "/"
	}
	return np
}
