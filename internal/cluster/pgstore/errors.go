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

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
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
	stateFeatureNotSupported  = "0A000"
	stateIdleInTxTimeout      = "25P03"
	stateLockNotAvailable     = "55P03"
	stateDiskFull             = "53100"
	stateOutOfSharedMemory    = "53200"
	stateTooManyConnections   = "53300"
	stateAdminShutdown        = "57P01"
	stateCrashShutdown        = "57P02"
	stateCannotConnectNow     = "57P03"
	stateInvalidCatalogName   = "3D000"
	stateInvalidPassword      = "28P01"
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
// failing to reach the server at all, or the socket breaking underneath us.
//
// The caller's own deadline or cancellation is never a lost connection,
// although pgx reports it by cutting the socket and context.DeadlineExceeded
// is itself a net.Error: a slow request (a statement waiting for a lock)
// says nothing about the database, and treating it as a loss would let
// anyone able to slow one request take the replica out of service.
func connectionLost(err error) bool {
	if err == nil {
		return false
	}
	var ce *pgconn.ConnectError
	connecting := errors.As(err, &ce)
	if s := sqlState(err); s != "" {
		// A FATAL error ends the session whatever its SQLSTATE: an idle-in-
		// transaction or idle-session timeout, a terminated backend. While
		// connecting, FATAL is also how the server refuses (a wrong password,
		// a missing database), which is configuration, not a loss.
		return lostState(s) || (!connecting && sessionEnded(err))
	}
	if connecting {
		// A connection attempt that failed on the network (refused, reset,
		// timed out by the connect timeout) finds the server gone; one the
		// server or TLS refused (no TLS offered, bad certificate) is a
		// configuration error that no retry can cure.
		if tlsCause, _ := tlsFailure(err); tlsCause != "" {
			return false
		}
		cause := ce.Unwrap()
		return errors.Is(cause, context.DeadlineExceeded) || brokenLink(cause)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if brokenLink(err) {
		return true
	}
	// pgconn reports use of a connection it already closed after a
	// network failure only by this message.
	return strings.Contains(err.Error(), "conn closed")
}

// deniedRole reports an error only another role cures: the server refused
// the login (SQLSTATE class 28) or the role lacks a privilege (42501).
func deniedRole(err error) bool {
	s := sqlState(err)
	return strings.HasPrefix(s, "28") || s == stateInsufficientPriv
}

// lostState reports the SQLSTATEs of a session the server ended or would
// not start.
func lostState(s string) bool {
	return strings.HasPrefix(s, "08") || s == stateAdminShutdown || s == stateCrashShutdown || s == stateCannotConnectNow
}

// sessionEnded reports an error the server sent as it ended the session.
func sessionEnded(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Severity == "FATAL" || pe.Severity == "PANIC")
}

// brokenLink reports a network-level failure of the socket.
func brokenLink(err error) bool {
	var ne net.Error
	switch {
	case errors.As(err, &ne):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNREFUSED):
		return true
	}
	return false
}

// Transient reports an error a later attempt may not meet: a lost
// connection, the server short of resources or shutting down, a lock or
// statement timeout, a lost serialization race, or a time limit of our
// own. Everything else (a wrong URL, TLS or password, a missing or
// drifted schema, missing privileges, a broken invariant) is a
// configuration or schema error that waiting does not fix.
func Transient(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, schedule.ErrUnavailable) || connectionLost(err) || qlerror.Is(err, qlerror.Timeout) {
		return true
	}
	switch s := sqlState(err); {
	case s == "":
		return errors.Is(err, context.DeadlineExceeded)
	case strings.HasPrefix(s, "53"), strings.HasPrefix(s, "57"), s == stateSerializationFailure, s == stateDeadlockDetected,
		s == stateLockNotAvailable, s == stateIdleInTxTimeout:
		return true
	}
	return false
}

// ConnectCause is why a connection could not be made or was refused, for
// an operator's log: the network error (the server's address and the
// system's reason, e.g. "dial tcp 10.0.0.5:5432: connect: connection
// refused") or the server's refusal ("password authentication failed for
// user …", with its SQLSTATE). Neither carries a password or the URL;
// any other error gives "".
//
// A session the server ended or would not start (SQLSTATE class 08, 57:
// "the database system is shutting down", "terminating connection due to
// administrator command") gives the server's sentence too, and a socket
// that broke without either its kind: a fast shutdown under a replica
// fails its activation so, and the line must say why as a refused TCP
// connection does. The server's sentences of these classes are its own,
// never a statement's parameters.
func ConnectCause(err error) string {
	// 28: invalid authorization (password, role); 3D: no such database;
	// 53300: no connection slot ("sorry, too many clients already").
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (strings.HasPrefix(pe.Code, "28") || strings.HasPrefix(pe.Code, "3D") || lostState(pe.Code) || pe.Code == stateTooManyConnections) {
		return pe.Message + " (SQLSTATE " + pe.Code + ")"
	}
	if cause, _ := tlsFailure(err); cause != "" {
		return cause
	}
	var ne *net.OpError
	if errors.As(err, &ne) {
		return ne.Error()
	}
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the server closed the connection"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "the connection was reset"
	case errors.Is(err, context.DeadlineExceeded) && connectionLost(err):
		return "the connection attempt timed out (connect_timeout)"
	case pe == nil && connectionLost(err):
		return "the connection broke and was closed"
	}
	return ""
}

// DiagnosticCode is StateCode, else connection_lost for a connection lost
// or never made on the network (refused, reset, timed out), which carries
// no SQLSTATE: an outage reads alike whether the server said it was going
// (57P01) or was simply gone, and an alert on connection_lost sees both.
func DiagnosticCode(err error) string {
	if code := StateCode(err); code != "" {
		return code
	}
	if connectionLost(err) {
		return string(schedule.ReasonConnectionLost)
	}
	return ""
}

// StateCode is the stable diagnostic code of err's SQLSTATE, by class where
// the exact state adds nothing an operator acts on, or "" when err carries
// none. Logs use it instead of the server's message, whose text can carry
// SQL parameters.
func StateCode(err error) string {
	s := sqlState(err)
	switch {
	case s == "":
		return ""
	case lostState(s):
		return string(schedule.ReasonConnectionLost)
	case LoginRefused(err):
		return codeLoginRefused
	case s == stateInvalidCatalogName:
		return codeDatabaseMissing
	case s == stateDiskFull:
		return "disk_full"
	case s == stateOutOfSharedMemory:
		return "out_of_shared_memory"
	case s == stateTooManyConnections:
		return "too_many_connections"
	case strings.HasPrefix(s, "53"):
		return "insufficient_resources"
	case s == stateQueryCanceled:
		return "statement_cancelled"
	case strings.HasPrefix(s, "57"):
		return "operator_intervention"
	case s == stateSerializationFailure:
		return "serialization_failure"
	case s == stateDeadlockDetected:
		return "deadlock_detected"
	case s == stateLockNotAvailable:
		return "lock_not_available"
	case s == stateIdleInTxTimeout:
		return "idle_in_transaction_timeout"
	case s == stateInsufficientPriv:
		return "insufficient_privilege"
	case strings.HasPrefix(s, "23"):
		return "constraint_violation"
	case strings.HasPrefix(s, "42"):
		return "schema_error"
	}
	return codeDatabaseError
}

// codeDatabaseError is StateCode's code for a SQLSTATE of no class it names.
const codeDatabaseError = "database_error"

// codeLoginRefused is StateCode's code for a login the server refused
// (class 28): the role's password or pg_hba.conf is at fault, not the
// server's health, so retrying or waiting never cures it.
const codeLoginRefused = "login_refused"

// codeDatabaseMissing is StateCode's code for a connection to a database
// the server does not have (3D000): it has to be created, or the URL's
// name corrected, before anything can connect; retrying never cures it.
const codeDatabaseMissing = "database_missing"

// writeReason is the commit outcome's reason for a failure that is neither
// a lost connection, a cancellation nor an existing occurrence: the
// SQLSTATE's stable code when it is a failure or unavailability reason of
// its own (resources, timeouts, a lock wait, operator intervention...),
// write_failed otherwise.
func writeReason(err error) schedule.Reason {
	if r, ok := schedule.ReasonOf(StateCode(err)); ok && r.Outcome() != schedule.Raced {
		return r
	}
	return schedule.ReasonWriteFailed
}

// passwordSources are where a connection's password comes from, in the
// order pgx reads them.
const passwordSources = "(the URL's, else $PGPASSWORD, else the service file's entry for service= in the URL or $PGSERVICE, " +
	"else the role's line in the password file $PGPASSFILE or ~/.pgpass)"

// checkServerRuns is what to do when nothing answered where a URL points.
const checkServerRuns = "check that PostgreSQL runs at the URL's host and port and accepts connections, then retry"

// mapErr turns a driver error into a coded error; what names the step.
func mapErr(err error, what string) error {
	if err == nil {
		return nil
	}
	var qe *qlerror.Error
	if errors.As(err, &qe) {
		return err
	}
	err = tellOnce(err)
	if cause, advice := tlsFailure(err); advice != "" {
		return qlerror.Wrap(qlerror.FailedPrecondition, err, "%s: TLS failed (%s): %s", what, cause, advice)
	}
	switch {
	case connectionLost(err):
		var ce *pgconn.ConnectError
		if errors.As(err, &ce) {
			// Nothing answered where the URL points (the cause names the
			// address): a server down, restarting, or a wrong host or port.
			return qlerror.Wrap(qlerror.Unavailable, unavailable{err}, "%s: the database is unavailable; %s", what, checkServerRuns)
		}
		return qlerror.Wrap(qlerror.Unavailable, unavailable{err}, "%s: the database is unavailable", what)
	case errors.Is(err, context.DeadlineExceeded):
		return qlerror.Wrap(qlerror.Timeout, err, "%s: the database did not answer in time (a lock held elsewhere or a slow statement); retry later", what)
	case errors.Is(err, context.Canceled):
		return qlerror.Wrap(qlerror.Unavailable, err, "%s: interrupted", what)
	case errors.Is(err, pgx.ErrNoRows):
		return qlerror.Wrap(qlerror.NotFound, err, "%s: not found", what)
	}
	switch s := sqlState(err); {
	case s == stateInvalidPassword:
		return qlerror.Wrap(qlerror.FailedPrecondition, err, "%s: PostgreSQL refused the login of role %s: a wrong password; check the role's password "+passwordSources+
			" (`ql db roles` sets the passwords of QingLong's roles)", what, loginRole(err))
	case LoginRefused(err):
		return qlerror.Wrap(qlerror.FailedPrecondition, err, "%s: PostgreSQL refused the login of role %s before any password: no line of pg_hba.conf "+
			"admits this host, role and database (add one and reload PostgreSQL), or the role does not exist or may not log in (`ql db roles` creates QingLong's roles); "+
			"if pg_hba.conf asks for a password, check it too "+passwordSources, what, loginRole(err))
	case s == stateInvalidCatalogName:
		return databaseMissing(err, what)
	case s == stateUniqueViolation:
		return qlerror.Wrap(qlerror.Conflict, err, "%s: already exists", what)
	case s == stateForeignKeyViolation, s == stateCheckViolation:
		return qlerror.Wrap(qlerror.FailedPrecondition, err, "%s: rejected by the schema", what)
	case s == stateInsufficientPriv:
		return qlerror.Wrap(qlerror.FailedPrecondition, err, "%s: permission denied; connect as the role meant for this (see `ql db roles`)", what)
	case s == stateReadOnlyTransaction, refusedByStandby(err):
		return qlerror.Wrap(qlerror.Unavailable, err, "%s: the database takes no writes (a standby in recovery, or default_transaction_read_only on) and refused it; "+
			"nothing was done: connect to the primary (with several hosts in the URL, add target_session_attrs=read-write)", what).Because(schedule.RefusalNotPrimary)
	case s == stateFeatureNotSupported:
		// Not a standby (runSerializable tells those apart): another
		// server would refuse it alike, so not_primary's advice would
		// send the operator chasing a failover that did not happen.
		return qlerror.Wrap(qlerror.FailedPrecondition, err, "%s: PostgreSQL refused it as a feature it does not support (SQLSTATE 0A000, feature_not_supported; the server is not a standby); "+
			"nothing was done: check that the server is a supported PostgreSQL (15 to 18) reached directly or through a proxy that passes every statement through, "+
			"and report the line if it is", what).Because(schedule.RefusalFeatureNotSupported)
	case s == stateSerializationFailure, s == stateDeadlockDetected:
		return qlerror.Wrap(qlerror.Conflict, err, "%s: kept losing serialization races; retry later", what)
	case s == stateQueryCanceled, s == stateLockNotAvailable, s == stateIdleInTxTimeout:
		return qlerror.Wrap(qlerror.Timeout, err, "%s: the database ended the statement (%s: a time limit or an operator); retry later", what, StateCode(err))
	case s == stateTooManyConnections:
		return qlerror.Wrap(qlerror.Unavailable, err, "%s: PostgreSQL has no connection left to give (too_many_connections: max_connections, or the role's CONNECTION LIMIT, is reached); "+
			"raise max_connections in postgresql.conf (then restart PostgreSQL) or run fewer replicas or commands at once: a replica opens up to %d connections (%d with retention), "+
			"a ql command up to %d (docs/operations.md, \"Server\")", what, ReplicaConns, ReplicaConns+maintenanceConns, adminPoolSize+DefaultRuntimeConns)
	case strings.HasPrefix(s, "53"), strings.HasPrefix(s, "57"):
		return qlerror.Wrap(qlerror.Unavailable, err, "%s: the database cannot serve it now (%s); retry later", what, StateCode(err))
	}
	return qlerror.Wrap(qlerror.Internal, err, "%s", what)
}

// databaseMissing says which database the server does not have (by name
// only: the URL can hold a password) and how to make it: create it, then
// install QingLong's schema and roles in it, as a first install does.
func databaseMissing(err error, what string) error {
	name := loginDatabase(err)
	create := "create it as a superuser"
	if name != "" {
		create += " (CREATE DATABASE " + pgx.Identifier{name}.Sanitize() + ")"
	} else {
		name = "the URL names"
	}
	return qlerror.Wrap(qlerror.FailedPrecondition, err, "%s: database %s does not exist on this server; %s, then install QingLong in it "+
		"with `ql db migrate` and `ql db roles`, or correct the database name in the URL", what, name, create)
}
