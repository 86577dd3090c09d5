package workeringress

import (
	"errors"
	"log/slog"
	"net/http"
	"regexp"
	"strings"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// Failures the ingress finds itself, beside the store's qlerror codes, so
// that every reply goes through replyOf.
const (
	codeTooLarge         qlerror.Code = "ingress_too_large"
	codeRateLimited      qlerror.Code = "ingress_rate_limited"
	codeMethodNotAllowed qlerror.Code = "ingress_method_not_allowed"
	// codeStopping is a replica whose stop began: unlike a replica that
	// cannot reach its database, it will not serve again in this process,
	// and a worker told so moves to its next --server without taking it
	// for an outage.
	codeStopping qlerror.Code = "ingress_stopping"
)

// CodeInternalError is the diagnostic code of a request that failed for a
// reason the worker cannot act on.
const CodeInternalError = "ingress.internal_error"

// CodeDatabaseBehind says a worker presented a lease version ahead of the
// database's, or an attempt newer than every attempt it holds — the
// database went back (a restore, a failover to a standby that lost
// commits). Logged once per process: every worker running then says it.
const CodeDatabaseBehind = "ingress.database_behind"

// replyOf is the only mapping from error codes to HTTP statuses and
// workerproto codes.
func replyOf(code qlerror.Code) (status int, wire string) {
	switch code {
	case qlerror.Invalid:
		return http.StatusBadRequest, workerproto.CodeInvalid
	case qlerror.Unauthenticated:
		return http.StatusUnauthorized, workerproto.CodeUnauthenticated
	case qlerror.PermissionDenied:
		return http.StatusForbidden, workerproto.CodeForbidden
	case qlerror.NotFound:
		return http.StatusNotFound, workerproto.CodeNotFound
	case qlerror.Conflict, qlerror.FailedPrecondition, qlerror.MutationDrift:
		return http.StatusConflict, workerproto.CodeFenced
	case codeTooLarge:
		return http.StatusRequestEntityTooLarge, workerproto.CodeTooLarge
	case codeRateLimited:
		return http.StatusTooManyRequests, workerproto.CodeRateLimited
	case codeMethodNotAllowed:
		return http.StatusMethodNotAllowed, workerproto.CodeInvalid
	case qlerror.Unavailable, qlerror.Timeout:
		return http.StatusServiceUnavailable, workerproto.CodeUnavailable
	case codeStopping:
		return http.StatusServiceUnavailable, workerproto.CodeReplicaStopping
	}
	return http.StatusInternalServerError, workerproto.CodeInternal
}

// credentialLike matches anything shaped like a worker credential, or a
// piece of one, so a message can never carry one even when the secret at
// hand is unknown. The prefix alone is no secret: a message may name it,
// to say what a credential looks like.
var credentialLike = regexp.MustCompile(regexp.QuoteMeta(workerproto.CredentialPrefix) + `[A-Za-z0-9_\-]+`)

// redact removes every secret of the request (its credential, its lease or
// offer token) and anything shaped like a credential from msg.
func redact(msg string, secrets ...string) string {
	for _, s := range secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "[redacted]")
		}
	}
	return credentialLike.ReplaceAllString(msg, "[redacted]")
}

// writeError answers with err's status and workerproto code. The message is
// the store's own sentence (never the wrapped driver text), redacted; an
// internal failure is logged and answered with a fixed text.
func (h *Handler) writeError(w http.ResponseWriter, r *http.Request, err error, secrets ...string) {
	code := qlerror.CodeOf(err)
	msg := "request failed"
	var qe *qlerror.Error
	if errors.As(err, &qe) {
		msg = qe.Msg
	}
	msg = redact(msg, secrets...)
	if qlerror.ReasonOf(err) == pgstore.RefusalDatabaseBehind && h.behindWarned.CompareAndSwap(false, true) {
		h.log.Warn("a worker is ahead of the database: the database went back to an earlier point than workers were told (a restore, or a failover to a standby that lost commits); "+
			"the commands it no longer knows are refused and end on their workers, and their Runs end database_rolled_back where the database still holds them; "+
			"logged once per process", slog.String("code", CodeDatabaseBehind), slog.String("path", r.URL.Path), slog.String("error", msg))
	}
	status, wire := replyOf(code)
	if status == http.StatusInternalServerError {
		h.log.Error("worker request failed", slog.String("code", CodeInternalError), slog.String("path", r.URL.Path), slog.String("error", msg))
		msg = "internal error; the replica's log has the details under code " + CodeInternalError
	}
	writeJSON(w, status, workerproto.Error{Code: wire, Message: msg})
}

// errorText is err for the diagnostic sink: the adapter's own sentence,
// never the driver's text, which may quote SQL parameters.
func errorText(err error) string {
	var qe *qlerror.Error
	if errors.As(err, &qe) {
		return string(qe.Code) + ": " + qe.Msg
	}
	return string(qlerror.CodeOf(err))
}
