package httpserve

import (
	"net/http"
	"reflect"
)

// MuxRedirects reports whether mux would answer r with a redirect of its
// own: to the cleaned form of a path with a dot segment (/./, /../) or
// an empty one (//), or to a subtree's root with its trailing slash
// (/assets to /assets/ for a pattern /assets/). ServeMux sends it before
// any handler runs, so without the handler's headers and without its
// checks (a token, a session). Every listener answers it as it answers a
// path it does not serve instead: no client has a reason to send one, a
// redirect from /api/v1/../../etc/passwd tells a scanner what the server
// cleans, and a subtree's root serves nothing (no listing).
func MuxRedirects(mux *http.ServeMux, r *http.Request) bool {
	h, _ := mux.Handler(r)
	return reflect.TypeOf(h) == redirectType
}

// redirectType is the type of the handlers ServeMux makes for its
// redirects: http.RedirectHandler's.
var redirectType = reflect.TypeOf(http.RedirectHandler("/", http.StatusTemporaryRedirect))
