package pgstore

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/qinglong/qinglong/internal/qlerror"
	"github.com/qinglong/qinglong/internal/schedule"
)

// SQLSTATEs the adapter reacts to.
const (
	stateSerializationFailure = "40001"
	stateDeadlockDetected     = "40P01"
	stateUniqueViolation      = "23505"
	stateForeignKeyViolation  = "23503"
	stateCheckViolation       = "23514"
	stateInsufficientPriv     = "42501"
	stateReadOnlyTransaction  = "25006"
	stateAdminShutdown        = "57P01"
	stateCrashShutdown        = "57P02"
	stateCannotConnectNow     = "57P03"
)

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// retryable reports a transaction that lost a serialization race and may be
// re-run from scratch.
func retryable(err error) bool {
	s := sqlState(err)
	return s == stateSerializationFailure || s == stateDeadlockDetected
}

// connectionLost reports an error meaning the database went away: SQLSTATE
// class 08, an administrator/crash shutdown or a server still starting,
// failing to connect at all, or the socket breaking underneath us.
func connectionLost(err error) bool {
	if err == nil {
		return false
	}
	switch s := sqlState(err); {
	case strings.HasPrefix(s, "08"), s == stateAdminShutdown, s == stateCrashShutdown, s == stateCannotConnectNow:
		return true
	case s != "":
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), errors.As(err, &ne):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNREFUSED):
		return true
	}
	// pgconn reports use of a connection it already closed after a
	// network failure only by this message.
	return strings.Contains(err.Error(), "conn closed")
}

// mapErr turns a driver error into a coded error; what names the step.
func mapErr(err error, what string) error {
	if err == nil {
		return nil
	}
	var qe *qlerror.Error
	if errors.As(err, &qe) {
		return err
	}
	switch {
	case connectionLost(err):
		return qlerror.Wrap(qlerror.Unavailable, errors.Join(schedule.ErrUnavailable, err), "%s: the database is unavailable", what)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return qlerror.Wrap(qlerror.Unavailable, err, "%s: interrupted", what)
	case errors.Is(err, pgx.ErrNoRows):
		return qlerror.Wrap(qlerror.NotFound, err, "%s: not found", what)
	}
	switch sqlState(err) {
	case stateUniqueViolation:
		return qlerror.Wrap(qlerror.Conflict, err, "%s: already exists", what)
	case stateForeignKeyViolation, stateCheckViolation:
		return qlerror.Wrap(qlerror.FailedPrecondition, err, "%s: rejected by the schema", what)
	case stateInsufficientPriv:
		return qlerror.Wrap(qlerror.FailedPrecondition, err, "%s: permission denied; connect as the role meant for this (see `ql db roles`)", what)
	case stateReadOnlyTransaction:
		return qlerror.Wrap(qlerror.Unavailable, err, "%s: the database is read-only", what)
	case stateSerializationFailure, stateDeadlockDetected:
		return qlerror.Wrap(qlerror.Conflict, err, "%s: kept losing serialization races; retry later", what)
	}
	return qlerror.Wrap(qlerror.Internal, err, "%s", what)
}
