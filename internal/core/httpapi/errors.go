package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/qinglong/qinglong/internal/core/cmdname"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// codeMethodNotAllowed extends the qlerror vocabulary for the one HTTP-only
// failure: a known path asked with the wrong method.
const codeMethodNotAllowed qlerror.Code = "method_not_allowed"

// statusOf is the only mapping from error codes to HTTP statuses.
func statusOf(code qlerror.Code) int {
	switch code {
	case qlerror.Invalid:
		return http.StatusBadRequest
	case qlerror.NotFound:
		return http.StatusNotFound
	case qlerror.Conflict, qlerror.MutationDrift, qlerror.FailedPrecondition:
		return http.StatusConflict
	case qlerror.Unavailable:
		return http.StatusServiceUnavailable
	case qlerror.Timeout:
		return http.StatusGatewayTimeout
	case codeMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case qlerror.Unauthenticated:
		return http.StatusUnauthorized
	case qlerror.PermissionDenied:
		return http.StatusForbidden
	case codeRateLimited:
		return http.StatusTooManyRequests
	case codeTooLarge:
		return http.StatusRequestEntityTooLarge
	case codeHostNotAllowed:
		return http.StatusMisdirectedRequest
	case qlerror.PreconditionFailed:
		return http.StatusPreconditionFailed
	case codeHeadersTooLarge:
		return http.StatusRequestHeaderFieldsTooLarge
	}
	return http.StatusInternalServerError
}

// RefusalNotOverTheAPI is the reason of a refusal of what this server
// cannot do over its API, whose message names the command that does it
// elsewhere (on the database, with another role): a client must not
// point that command at this server again.
const RefusalNotOverTheAPI qlerror.Reason = "not_over_api"

// The reasons of the API's own refusals, before a handler runs and in
// the request it reads: a client matches these, never the message
// (docs/operations.md lists them).
const (
	// RefusalTokenMissing: no Authorization header in the Bearer scheme.
	RefusalTokenMissing qlerror.Reason = "token_missing"
	// RefusalTokenMalformed: a bearer token not shaped like one.
	RefusalTokenMalformed qlerror.Reason = "token_malformed"
	// RefusalTokenUnknown: a token shaped like one that nobody holds.
	RefusalTokenUnknown qlerror.Reason = "token_unknown"
	// RefusalTokenRevoked and RefusalTokenExpired: a token that was valid.
	RefusalTokenRevoked qlerror.Reason = "token_revoked"
	RefusalTokenExpired qlerror.Reason = "token_expired"
	// RefusalAddressThrottled: a token that did not authenticate, from an
	// address that failed too often (429, retry in 60 s).
	RefusalAddressThrottled qlerror.Reason = "address_throttled"
	// RefusalTokenOverRate: a valid token over its requests a second
	// (429, retry in 1 s).
	RefusalTokenOverRate qlerror.Reason = "token_over_rate"
	// RefusalScopeTooSmall: a valid token whose scope does not cover the
	// route (403).
	RefusalScopeTooSmall qlerror.Reason = "scope_too_small"
	// RefusalMethodNotAllowed: a known path asked with another method (405).
	RefusalMethodNotAllowed qlerror.Reason = "method_not_allowed"
	// RefusalNoSuchEndpoint: a path under /api/ no route serves (404).
	RefusalNoSuchEndpoint qlerror.Reason = "no_such_endpoint"
	// RefusalMetricsNotHere: GET /metrics of a server that serves its
	// metrics elsewhere or not at all (404).
	RefusalMetricsNotHere qlerror.Reason = "metrics_not_here"
	// RefusalNotReady: the server is not admitting requests (503).
	RefusalNotReady qlerror.Reason = "server_not_ready"
	// RefusalBodyTooLarge: a request body over its cap (413).
	RefusalBodyTooLarge qlerror.Reason = "body_too_large"
	// RefusalHeadersTooLarge: a request line and headers over
	// MaxHeaderSize (431).
	RefusalHeadersTooLarge qlerror.Reason = "headers_too_large"
	// RefusalHostNotAllowed: a Host header off the allow-list (421).
	RefusalHostNotAllowed qlerror.Reason = "host_not_allowed"
	// RefusalBodyContentType: a body sent as another type than JSON.
	RefusalBodyContentType qlerror.Reason = "body_content_type"
	// RefusalBodyNotJSON: a body that is not valid JSON.
	RefusalBodyNotJSON qlerror.Reason = "body_not_json"
	// RefusalBodyTruncated: a body that ends inside its JSON value.
	RefusalBodyTruncated qlerror.Reason = "body_truncated"
	// RefusalBodyNotObject: a body that is JSON but not one object (null,
	// an array, a string, a number, a boolean).
	RefusalBodyNotObject qlerror.Reason = "body_not_object"
	// RefusalBodyManyValues: a body of more than one JSON value.
	RefusalBodyManyValues qlerror.Reason = "body_many_values"
	// RefusalBodyUnknownField: a field the endpoint does not take, a
	// known one spelt in another case included.
	RefusalBodyUnknownField qlerror.Reason = "body_unknown_field"
	// RefusalBodyFieldTwice: a field given twice in the object.
	RefusalBodyFieldTwice qlerror.Reason = "body_field_twice"
	// RefusalBodyFieldType: a field of another JSON type than it takes.
	RefusalBodyFieldType qlerror.Reason = "body_field_type"
	// RefusalIdempotencyKeyMismatch: a run now or a re-run whose
	// Idempotency-Key header and body's requestId name different requests.
	RefusalIdempotencyKeyMismatch qlerror.Reason = "idempotency_key_mismatch"
	// RefusalIdempotencyKeyInUse: a dependencies change whose
	// Idempotency-Key another server is making the change of, or whose
	// claim was cut off less than a lease ago.
	RefusalIdempotencyKeyInUse qlerror.Reason = "idempotency_key_in_use"
	// RefusalBodyFieldMissing: a required field left out.
	RefusalBodyFieldMissing qlerror.Reason = "body_field_missing"
	// RefusalQueryUnknown: a query parameter the endpoint does not take.
	RefusalQueryUnknown qlerror.Reason = "query_parameter_unknown"
	// RefusalQueryTwice: a query parameter given more than once.
	RefusalQueryTwice qlerror.Reason = "query_parameter_twice"
	// RefusalQueryNotACount: a count parameter (limit, runs, ledger) that
	// is not a whole number within its range.
	RefusalQueryNotACount qlerror.Reason = "query_not_a_count"
	// RefusalQueryNotABoolean: a parameter taking true or false given
	// another value.
	RefusalQueryNotABoolean qlerror.Reason = "query_not_a_boolean"
	// RefusalQueryFileName: apply's file parameter, which names the body
	// in its errors, not a plain file name.
	RefusalQueryFileName qlerror.Reason = "query_file_name"
	// RefusalSecretMissing: a DELETE of a secret the file does not
	// define.
	RefusalSecretMissing qlerror.Reason = "secret_missing"
	// RefusalPreconditionNotHere: a write sent a precondition header
	// (If-Match, If-None-Match, If-Unmodified-Since) its route does not
	// check.
	RefusalPreconditionNotHere qlerror.Reason = "precondition_not_here"
	// RefusalPreconditionHeader: an apply's If-None-Match other than *,
	// or beside If-Match.
	RefusalPreconditionHeader qlerror.Reason = "precondition_header"
)

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    qlerror.Code `json:"code"`
	Message string       `json:"message"`
	// Reason names the refusal more finely than Code, where it has a
	// reason: a client matches it, never the message.
	Reason qlerror.Reason `json:"reason,omitempty"`
	// Params are the values the reason's sentence names (the revision an
	// If-Match missed, the zone a trigger lacks), for a client that words
	// the refusal itself or acts on it; never an internal error's.
	Params map[string]string `json:"params,omitempty"`
	// Errors place a definitions file's errors at their line and column,
	// every one of them in file order up to apply.MaxErrors; MoreErrors
	// counts those found past them.
	Errors     []fileError `json:"errors,omitempty"`
	MoreErrors int         `json:"moreErrors,omitempty"`
}

// sentences is e's message followed by those of the coded errors it wraps
// directly, each a sentence written for the client: "defs.yaml: nothing
// was applied" alone does not say why. The chain stops at the first error
// that is not coded (a driver's, which may carry SQL or server detail),
// and a sentence its wrapper already repeats is not said twice.
func sentences(e *qlerror.Error) string {
	msg := e.Msg
	for inner, ok := e.Err.(*qlerror.Error); ok; inner, ok = inner.Err.(*qlerror.Error) {
		if inner.Msg != "" && !strings.Contains(msg, inner.Msg) {
			msg += ": " + inner.Msg
		}
	}
	return msg
}

// writeError answers with err's code and message, its commands named
// after the binary serving (Config.Binary). Internal errors are logged
// with their adapter message and answered with a fixed text, so neither
// SQL nor server detail reaches a client.
func (a *api) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := qlerror.CodeOf(err)
	msg := err.Error()
	var qe *qlerror.Error
	if errors.As(err, &qe) {
		// The adapter's own sentences; the wrapped driver error stays out.
		msg = sentences(qe)
	}
	if text, ok := locatedText(err); ok && code != qlerror.Internal {
		msg = text
	}
	if code == qlerror.Internal {
		a.Log.Error("request failed", slog.String("code", CodeInternalError), slog.String("path", r.URL.Path), slog.String("error", msg))
		msg = "internal error; the server's log has the details under code " + CodeInternalError
	}
	msg = cmdname.As(a.Binary, msg)
	errs, more := located(err)
	for i := range errs {
		errs[i].Message = cmdname.As(a.Binary, errs[i].Message)
	}
	var params map[string]string
	if code != qlerror.Internal {
		params = qlerror.ParamsOf(err)
	}
	if retry := hold.RetryAfter(err); retry != "" && code != qlerror.Internal && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", retry)
	}
	writeJSON(w, statusOf(code), errorBody{Error: errorDetail{Code: code, Message: msg, Reason: qlerror.ReasonOf(err), Params: params, Errors: errs, MoreErrors: more}})
}
