package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"

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
	}
	return http.StatusInternalServerError
}

// RefusalNotOverTheAPI is the reason of a refusal of what this server
// cannot do over its API, whose message names the command that does it
// elsewhere (on the database, with another role): a client must not
// point that command at this server again.
const RefusalNotOverTheAPI qlerror.Reason = "not_over_api"

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    qlerror.Code `json:"code"`
	Message string       `json:"message"`
	// Reason names the refusal more finely than Code, where it has a
	// reason: a client matches it, never the message.
	Reason qlerror.Reason `json:"reason,omitempty"`
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

// writeError answers with err's code and message. Internal errors are
// logged with their adapter message and answered with a fixed text, so
// neither SQL nor server detail reaches a client.
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
	errs, more := located(err)
	writeJSON(w, statusOf(code), errorBody{Error: errorDetail{Code: code, Message: msg, Reason: qlerror.ReasonOf(err), Errors: errs, MoreErrors: more}})
}
