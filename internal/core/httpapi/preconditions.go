package httpapi

import (
	"net/http"
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// conditions are the precondition headers (RFC 9110 section 13) a write
// route enforces. A write route refuses every other one it is sent
// (refuseUnheld): a client that sends a precondition means the write to
// happen only if it holds, and a write made regardless would be the one
// it guarded against. Reads answer as they would without them.
type conditions int

const (
	// unconditional routes enforce none: what they change (a pause, a
	// Run, a secret) is not what a project's revision digests.
	unconditional conditions = iota
	// checksIfMatch routes move a project's revision and enforce If-Match
	// over it, in their publishing transaction.
	checksIfMatch
	// checksIfMatchOrNoneMatch is the apply's: If-Match, or If-None-Match: *
	// (create the project only).
	checksIfMatchOrNoneMatch
)

// preconditionHeaders are the precondition headers a write may carry;
// If-Modified-Since and If-Range concern reads alone.
var preconditionHeaders = []string{"If-Match", "If-None-Match", "If-Unmodified-Since"}

// honours reports whether c enforces header.
func (c conditions) honours(header string) bool {
	switch header {
	case "If-Match":
		return c == checksIfMatch || c == checksIfMatchOrNoneMatch
	case "If-None-Match":
		return c == checksIfMatchOrNoneMatch
	}
	return false
}

// checked says which preconditions c enforces, for a refusal of another.
func (c conditions) checked() string {
	switch c {
	case checksIfMatch:
		return "it checks If-Match alone"
	case checksIfMatchOrNoneMatch:
		return "it checks If-Match and If-None-Match: * alone"
	}
	return "what it changes is not what a project's revision, its ETag, names"
}

// refuseUnheld answers a write route's request carrying a precondition
// header the route does not enforce with 400 (RefusalPreconditionNotHere),
// before h does anything.
func (a *api) refuseUnheld(rt route, h http.HandlerFunc) http.HandlerFunc {
	if rt.method == http.MethodGet {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) {
		for _, name := range preconditionHeaders {
			if len(r.Header.Values(name)) == 0 || rt.preconditions.honours(name) {
				continue
			}
			a.writeError(w, r, qlerror.New(qlerror.Invalid, "%s %s does not check %s (%s), so the header would be ignored; "+
				"send the request without it (docs/operations.md lists the routes that check If-Match)", rt.method, rt.pattern, name, rt.preconditions.checked()).
				Because(RefusalPreconditionNotHere, "header", name, "route", rt.method+" "+rt.pattern))
			return
		}
		h(w, r)
	}
}

// ifNoneMatch reports whether an apply carries If-None-Match: *, refusing
// any other value (a revision the project must not be at means nothing
// to an apply) and If-None-Match beside If-Match.
func ifNoneMatch(r *http.Request) (bool, error) {
	vs := r.Header.Values("If-None-Match")
	if len(vs) == 0 {
		return false, nil
	}
	if len(vs) > 1 || strings.TrimSpace(vs[0]) != "*" {
		return false, qlerror.New(qlerror.Invalid, "If-None-Match is %q; an apply takes only If-None-Match: *, which applies only to create the project", clip(strings.Join(vs, ", "))).
			Because(RefusalPreconditionHeader, "header", "If-None-Match", "value", clip(strings.Join(vs, ", ")))
	}
	if len(r.Header.Values("If-Match")) > 0 {
		return false, qlerror.New(qlerror.Invalid, "If-None-Match: * (create the project only) and If-Match (change it only at a revision) cannot both hold; send one").
			Because(RefusalPreconditionHeader, "header", "If-None-Match")
	}
	return true, nil
}
