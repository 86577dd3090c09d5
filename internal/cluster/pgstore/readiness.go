package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Readiness codes: stable strings, in the order checked (the search_path
// is checked for the session and the schemas before the privileges, for
// the roles after them).
const (
	CodeUnavailable           = "unavailable"
	CodeNotPrimary            = "not_primary"
	CodeReadOnly              = "read_only"
	CodeVersionUnsupported    = "version_unsupported"
	CodeHistoryMismatch       = "history_mismatch"
	CodeHistoryAhead          = "history_ahead"
	CodeHistoryBehind         = "history_behind"
	CodeCapabilityMismatch    = "capability_mismatch"
	CodeSchemaDrift           = "schema_drift"
	CodeUnsafeSearchPath      = "unsafe_search_path"
	CodePrivilegeDrift        = "privilege_drift"
	CodeUnboundedSession      = "unbounded_session"
	CodeServerSettingTooSmall = "server_setting_too_small"
)

// CodeRoleTooPowerful is checked on runtime connections only (a replica's,
// `ql db check`'s), right after the server's state: a connection as the
// wrong role is told first, whatever else that role would see.
const CodeRoleTooPowerful = "role_too_powerful"

// CodeRoleDenied says the connection's role may not read the migration
// history, the first of QingLong's tables every check reads: not a role
// of QingLong's that reads its schema (the worker ingress role may only
// connect). Only another URL cures it, as for CodeRoleTooPowerful.
const CodeRoleDenied = "role_denied"

// readinessMessages are the one-line human summaries of the codes.
var readinessMessages = map[string]string{
	CodeUnavailable:           "PostgreSQL cannot be reached or answered with an error",
	CodeNotPrimary:            "PostgreSQL is a standby (in recovery); point QingLong at the writable primary",
	CodeReadOnly:              "PostgreSQL is read-only (default_transaction_read_only is on); make it writable",
	CodeVersionUnsupported:    "PostgreSQL version is not supported; use PostgreSQL 15 to 18",
	CodeHistoryMismatch:       "migration history differs from this binary's migrations; restore the database or use the matching binary",
	CodeHistoryAhead:          "the database was migrated by a newer QingLong; upgrade this binary",
	CodeHistoryBehind:         "the database is missing migrations; run `ql db migrate`",
	CodeCapabilityMismatch:    "the capability row does not match the migration history; the schema was changed outside `ql db migrate`",
	CodeSchemaDrift:           "tables, columns, indexes or constraints differ from what the migrations create; the schema was changed by hand",
	CodeUnsafeSearchPath:      "a QingLong role or this session can resolve names through a schema others may create objects in; run `ql db roles`, and revoke CREATE on the named schema from PUBLIC and every role that is not QingLong's",
	CodePrivilegeDrift:        "role attributes, memberships or grants differ from the exact QingLong matrix; run `ql db roles`",
	CodeUnboundedSession:      "a QingLong role's statement or idle-in-transaction timeout is missing, disabled or too large; run `ql db roles`",
	CodeServerSettingTooSmall: "a PostgreSQL server setting is below what the cluster needs; raise it in postgresql.conf and restart PostgreSQL (docs/operations.md lists the settings)",
	CodeRoleDenied:            "the connection's role may not read QingLong's schema (the worker ingress role may only connect); connect as the runtime role `ql db roles` created (its URL in QL_DATABASE_URL for a replica, in QL_DATABASE_RUNTIME_URL for `ql db check`)",
	CodeRoleTooPowerful:       "the runtime connection's role may do more than the runtime role, which voids the least-privilege grants; connect as the runtime role `ql db roles` created (its URL in QL_DATABASE_URL for a replica, in QL_DATABASE_RUNTIME_URL for `ql db check`)",
}

// Supported server versions (server_version_num), both inclusive of the
// majors 15 to 18.
const (
	minServerVersion = 150000
	maxServerVersion = 189999
)

// ReadinessError is a failed readiness check: Code is stable, Detail says
// exactly what differs.
type ReadinessError struct {
	Code   string
	Detail string
	Err    error
}

func (e *ReadinessError) Error() string {
	msg := "database not ready (" + e.Code + "): " + readinessMessages[e.Code]
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *ReadinessError) Unwrap() error { return e.Err }

// Message is the one-line human summary of the code.
func (e *ReadinessError) Message() string { return readinessMessages[e.Code] }

// Check runs the readiness checks over a fresh connection to url (the
// migration, admin or runtime role may run it; the runtime will;
// worker_ingress cannot read the migration history). It returns nil, a
// *ReadinessError, or the connection's own error when the URL, the login
// or the database name is wrong: the checks never ran, and "unavailable"
// would send the operator looking for a server that answered.
func Check(ctx context.Context, url string, roles Roles) error {
	return checkAt(ctx, url, roles)
}

// CheckRuntime is Check for a runtime connection (`ql db check`): it also
// refuses a role that may do more than the runtime role
// (CodeRoleTooPowerful), as a replica's readiness does.
func CheckRuntime(ctx context.Context, url string, roles Roles) error {
	return checkAt(ctx, url, roles, checkRuntimeRole)
}

func checkAt(ctx context.Context, url string, roles Roles, extra ...readinessCheck) error {
	conn, err := connect(ctx, url)
	if err != nil {
		var qe *qlerror.Error
		switch {
		case qlerror.Is(err, qlerror.Invalid), qlerror.Is(err, qlerror.FailedPrecondition):
			return err
		case errors.As(err, &qe) && qe.Code == qlerror.Unavailable && qe.Err != nil && connectionLost(qe.Err):
			// The code already says the server cannot be reached; the
			// cause alone adds why, and what to check.
			return &ReadinessError{Code: CodeUnavailable, Err: fmt.Errorf("%w; %s", qe.Err, checkServerRuns)}
		}
		return &ReadinessError{Code: CodeUnavailable, Err: err}
	}
	defer conn.Close(context.WithoutCancel(ctx))
	err = checkReadiness(ctx, conn, roles, extra...)
	if sqlState(err) == stateQueryCanceled {
		return cancelledByTimeout(ctx, conn, err)
	}
	return err
}

// cancelledByTimeout names the statement_timeout under which a readiness
// statement was cancelled. The check's connection sends no timeout of its
// own (a replica's does), so the role's or the server's applies: one set
// by hand too low fails every check, which must not read as an outage
// to wait out. err is returned as it was when the setting cannot be read.
func cancelledByTimeout(ctx context.Context, conn *pgx.Conn, err error) error {
	// The SET is as short a statement as any; one the timeout cancels too
	// is tried again, a few times, since a loaded server may take longer
	// than a very short bound to start even that.
	lifted := false
	for range 10 {
		if _, setErr := conn.Exec(ctx, sqlLiftStmtTimeout); setErr == nil {
			lifted = true
			break
		}
	}
	var setting, source string
	if !lifted || conn.QueryRow(ctx, sqlSessionStmtTimeout).Scan(&setting, &source) != nil {
		return err
	}
	where := "the server's (" + source + ")"
	switch source {
	case "user":
		where = "the role's own (ALTER ROLE … SET statement_timeout)"
	case "database user":
		where = "the role's own in this database (ALTER ROLE … IN DATABASE … SET statement_timeout)"
	case "database":
		where = "the database's (ALTER DATABASE … SET statement_timeout)"
	}
	// Not wrapped: the cancellation's own words say to retry, and its
	// SQLSTATE would make it transient.
	return qlerror.New(qlerror.FailedPrecondition, "readiness: a check was cancelled (SQLSTATE 57014) by statement_timeout = %s, %s, too short for the checks; "+
		"raise it or remove it where it was set (RESET statement_timeout), then run `ql db roles`, which sets QingLong's own (%s for the runtime role); "+
		"a replica sends its own timeouts, which this one does not bound", setting, where, runtimeStatementTimeout)
}

// readinessCheck is one check, run inside the readiness transaction.
type readinessCheck func(context.Context, pgx.Tx, Roles) error

type txBeginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// checkReadiness runs every check, in order, inside one read-only
// transaction with search_path pinned to pg_catalog so every name the
// catalog functions print is schema-qualified the same way on every server.
// The extra checks run right after the server's state.
func checkReadiness(ctx context.Context, db txBeginner, roles Roles, extra ...readinessCheck) error {
	tx, err := db.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead})
	if err != nil {
		return &ReadinessError{Code: CodeUnavailable, Err: mapErr(err, "starting the readiness transaction")}
	}
	defer rollbackTx(ctx, tx)
	var sessionPath string
	if err := tx.QueryRow(ctx, sqlSessionSearchPath).Scan(&sessionPath); err != nil {
		return &ReadinessError{Code: CodeUnavailable, Err: mapErr(err, "reading search_path")}
	}
	if _, err := tx.Exec(ctx, sqlPinSearchPath); err != nil {
		return &ReadinessError{Code: CodeUnavailable, Err: mapErr(err, "pinning search_path")}
	}
	checks := append(append([]readinessCheck{checkServer}, extra...),
		checkHistory, checkCapability, checkSchema, checkSearchPath(sessionPath),
		checkPrivileges, checkRolePaths, checkSessionBounds, checkServerSettings)
	for _, check := range checks {
		if err := check(ctx, tx, roles); err != nil {
			return err
		}
	}
	return nil
}

func checkServer(ctx context.Context, tx pgx.Tx, _ Roles) error {
	var inRecovery bool
	var readOnly, version string
	if err := tx.QueryRow(ctx, sqlServerState).Scan(&inRecovery, &readOnly, &version); err != nil {
		return &ReadinessError{Code: CodeUnavailable, Err: mapErr(err, "reading the server state")}
	}
	if inRecovery {
		return &ReadinessError{Code: CodeNotPrimary}
	}
	if readOnly == "on" {
		return &ReadinessError{Code: CodeReadOnly}
	}
	n, err := strconv.Atoi(version)
	if err != nil || n < minServerVersion || n > maxServerVersion {
		return &ReadinessError{Code: CodeVersionUnsupported, Detail: "server_version_num is " + version}
	}
	return nil
}

func checkHistory(ctx context.Context, tx pgx.Tx, roles Roles) error {
	history, err := readHistory(ctx, tx)
	if sqlState(err) == stateInsufficientPriv {
		// The code's message already says whom to connect as; the
		// adapter's own "permission denied" advice would say it again.
		return &ReadinessError{Code: CodeRoleDenied, Detail: "it was refused the migration history (permission denied); the runtime role here is " + roles.Runtime}
	}
	if err != nil {
		return &ReadinessError{Code: CodeUnavailable, Err: err}
	}
	return compareHistory(history, stream, true)
}

func checkCapability(ctx context.Context, tx pgx.Tx, _ Roles) error {
	rows, err := tx.Query(ctx, sqlCapabilityAll)
	if err != nil {
		return &ReadinessError{Code: CodeUnavailable, Err: mapErr(err, "reading the capability row")}
	}
	type capRow struct {
		Component, Name string
		Version         int
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (capRow, error) {
		var c capRow
		err := r.Scan(&c.Component, &c.Version, &c.Name)
		return c, err
	})
	if err != nil {
		return &ReadinessError{Code: CodeUnavailable, Err: mapErr(err, "reading the capability row")}
	}
	last := stream[len(stream)-1]
	want := capRow{Component: capabilityComponent, Version: last.Seq, Name: last.Name}
	if len(got) != 1 || got[0] != want {
		return &ReadinessError{Code: CodeCapabilityMismatch, Detail: fmt.Sprintf("want exactly %s v%d %q, found %v", want.Component, want.Version, want.Name, got)}
	}
	return nil
}
