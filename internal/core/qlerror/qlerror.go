// Package qlerror is QingLong's error vocabulary: every error a user can
// cause carries a stable Code and a message that says what was wrong and what
// to do. Adapters map driver errors to these codes; exactly one function (in
// the HTTP API) maps codes to statuses.
package qlerror

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// Code is a stable, machine-readable error class.
type Code string

const (
	// Invalid means the input violates a documented limit or shape.
	Invalid Code = "invalid"
	// NotFound means the named object does not exist.
	NotFound Code = "not_found"
	// Conflict means an expected-revision or uniqueness fence failed.
	Conflict Code = "conflict"
	// MutationDrift means a mutation id was replayed with different content.
	MutationDrift Code = "mutation_drift"
	// FailedPrecondition means the write is valid but the current state forbids it
	// (archived project, disabled task pinned by an enabled trigger...).
	FailedPrecondition Code = "failed_precondition"
	// PreconditionFailed means the caller made its write conditional on
	// what it read (an apply's expected project revision, If-Match) and
	// that is no longer so: nothing was written.
	PreconditionFailed Code = "precondition_failed"
	// Unavailable means the database could not be reached; the outcome of an
	// in-flight write may be unknown.
	Unavailable Code = "unavailable"
	// Timeout means the database did not answer within the request's time limit
	// (a lock held elsewhere, a slow statement); the database itself may be
	// fine, so a retry can succeed.
	Timeout Code = "timeout"
	// Unauthenticated means the caller presented no credential, or one
	// that is unknown, expired or revoked.
	Unauthenticated Code = "unauthenticated"
	// PermissionDenied means the credential is valid but may not act on
	// the object (another worker's session or lease).
	PermissionDenied Code = "permission_denied"
	// Internal means a broken invariant (corrupt digest, impossible state).
	Internal Code = "internal"
)

// Reason names one refusal more finely than its Code, stably: a caller that
// says it in its own words (the console, in the page's language) matches
// the reason, never the message, whose words may change. Each is declared
// next to the code that refuses with it.
type Reason string

// Error is a coded error.
type Error struct {
	Code   Code
	Msg    string
	Err    error
	Reason Reason
	// Params are the values a sentence for Reason names, by name: the
	// field's path, the value given, the values allowed or the range
	// ("field", "value", "allowed", "min", "max"…). A caller wording the
	// reason in its own language needs them; Msg already says them.
	Params map[string]string
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// New returns a coded error with a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Wrap returns a coded error wrapping err.
func Wrap(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Err: err}
}

// Because gives e its reason and, as key, value pairs (as log/slog takes
// its attributes), the values a sentence for the reason names; it returns e.
// A value is kept as fmt.Sprint spells it; a key without a value is dropped.
func (e *Error) Because(r Reason, params ...any) *Error {
	e.Reason = r
	for i := 0; i+1 < len(params); i += 2 {
		if e.Params == nil {
			e.Params = make(map[string]string, len(params)/2)
		}
		e.Params[fmt.Sprint(params[i])] = fmt.Sprint(params[i+1])
	}
	return e
}

// ReasonOf returns the reason of the first coded error in err's chain that
// has one, or "" when none has. Several errors joined (errors.Join) are
// searched in order: the first mistake's reason is the whole refusal's.
func ReasonOf(err error) Reason {
	if e := reasoned(err); e != nil {
		return e.Reason
	}
	return ""
}

// ParamsOf returns the params of the error whose reason ReasonOf returns
// (nil when none has a reason): the values its sentence names.
func ParamsOf(err error) map[string]string {
	if e := reasoned(err); e != nil {
		return e.Params
	}
	return nil
}

// reasoned is the first *Error with a reason in err's tree, depth first.
func reasoned(err error) *Error {
	for err != nil {
		if e, ok := err.(*Error); ok && e.Reason != "" {
			return e
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, inner := range j.Unwrap() {
				if e := reasoned(inner); e != nil {
					return e
				}
			}
			return nil
		}
		err = errors.Unwrap(err)
	}
	return nil
}

// Reasoned returns every coded error with a reason in err's tree, in the
// order ReasonOf searches it: the first is the one ReasonOf and ParamsOf
// read. Several mistakes joined (errors.Join) give one each; a reasoned
// error's own causes are its, not more mistakes.
func Reasoned(err error) []*Error {
	var out []*Error
	for err != nil {
		if e, ok := err.(*Error); ok && e.Reason != "" {
			return append(out, e)
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, inner := range j.Unwrap() {
				out = append(out, Reasoned(inner)...)
			}
			return out
		}
		err = errors.Unwrap(err)
	}
	return out
}

// CodeOf returns the code of the first coded error in err's chain, or
// Internal for uncoded errors (so unknown failures never look like user
// mistakes).
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// Is reports whether err carries code.
func Is(err error, code Code) bool {
	return err != nil && CodeOf(err) == code
}

// MaxEchoed is the most characters of a caller's own text (a parameter's
// value, an id that is none) a refusal's message or params repeat.
const MaxEchoed = 64

// Echoed is s cut to MaxEchoed characters, the cut marked, so that a
// refusal repeating what its caller sent stays short.
func Echoed(s string) string {
	if utf8.RuneCountInString(s) <= MaxEchoed {
		return s
	}
	return string([]rune(s)[:MaxEchoed]) + "…"
}
