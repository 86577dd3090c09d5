package pgstore

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/freeport"
)

// rawConn is a single connection as the runtime role, for driver errors
// as they come.
func (e *env) rawConn(t *testing.T) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), e.url(RoleRuntime))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// withURL returns the runtime role's URL changed by edit.
func (e *env) withURL(t *testing.T, edit func(u *url.URL)) string {
	t.Helper()
	u, err := url.Parse(e.url(RoleRuntime))
	if err != nil {
		t.Fatal(err)
	}
	edit(u)
	return u.String()
}

// A request's own deadline is a net.Error too; only a lost connection may
// say the database is gone. Every error here is produced for real.
func TestALostConnectionIsToldApartFromARequestsOwnDeadline(t *testing.T) {
	t.Parallel()
	s := newStore(t)

	// The API's path: a read blocked behind a lock runs out of its time.
	lock, err := s.super.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.Exec(t.Context(), `LOCK TABLE qinglong.runs IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	_, readErr := s.runtime.RunGet(ctx, ids.New())
	cancel()
	ctx, cancel = context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, cancelErr := s.runtime.RunGet(ctx, ids.New())
	if err := lock.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	var ne net.Error
	if !errors.As(readErr, &ne) {
		t.Fatalf("the timed-out read %v is no net.Error; the hazard this guards against is gone", readErr)
	}
	if errors.Is(readErr, schedule.ErrUnavailable) || !qlerror.Is(readErr, qlerror.Timeout) || !Transient(readErr) {
		t.Fatalf("read past its deadline: %v (code %s); want a transient timeout, not a lost database", readErr, qlerror.CodeOf(readErr))
	}
	if cancelErr == nil || errors.Is(cancelErr, schedule.ErrUnavailable) {
		t.Fatalf("cancelled read: %v; want an error that is not a lost database", cancelErr)
	}

	// A statement the server ended for its statement_timeout.
	conn := s.rawConn(t)
	_, stmtErr := conn.Exec(t.Context(), `SET statement_timeout = 50; SELECT pg_sleep(5)`)

	// A backend terminated under an idle connection.
	var pid int32
	if err := conn.QueryRow(t.Context(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	s.terminate(t, pid)
	_, termErr := conn.Exec(t.Context(), `SELECT 1`)

	// Nothing listening where the URL points.
	closedAddr := freeport.Refused(t)
	_, refusedErr := pgx.Connect(t.Context(), s.withURL(t, func(u *url.URL) { u.Host = closedAddr }))
	// TLS demanded of a server offering none, and a database that does not
	// exist (the test server trusts every password).
	_, tlsErr := pgx.Connect(t.Context(), s.withURL(t, func(u *url.URL) {
		q := u.Query()
		q.Set("sslmode", "require")
		u.RawQuery = q.Encode()
	}))
	_, noDBErr := pgx.Connect(t.Context(), s.withURL(t, func(u *url.URL) { u.Path = "/no_such_database" }))

	for _, c := range []struct {
		name            string
		err             error
		lost, transient bool
	}{
		{"statement_timeout", stmtErr, false, true},
		{"terminated backend", termErr, true, true},
		{"connection refused", refusedErr, true, true},
		{"TLS refused", tlsErr, false, false},
		{"no such database", noDBErr, false, false},
	} {
		if c.err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		if got := connectionLost(c.err); got != c.lost {
			t.Errorf("%s (%v): connection lost %v, want %v", c.name, c.err, got, c.lost)
		}
		if got := Transient(c.err); got != c.transient {
			t.Errorf("%s (%v): transient %v, want %v", c.name, c.err, got, c.transient)
		}
		if got := errors.Is(mapErr(c.err, "step"), schedule.ErrUnavailable); got != c.lost {
			t.Errorf("%s: mapped error wraps ErrUnavailable %v, want %v", c.name, got, c.lost)
		}
	}
	if !qlerror.Is(mapErr(stmtErr, "step"), qlerror.Timeout) {
		t.Errorf("statement_timeout maps to %s, want timeout", qlerror.CodeOf(mapErr(stmtErr, "step")))
	}
}

// Every SQLSTATE class an admission can meet ends in a stable reason (and
// only a connection class in a lost database), raised for real by the
// server inside the admission's own write.
func TestAdmissionFailuresCarryAStableReasonPerSQLState(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.exec(t, `CREATE TABLE public.injected_fault (state text)`)
	s.exec(t, `INSERT INTO public.injected_fault VALUES (NULL)`)
	s.exec(t, `CREATE FUNCTION public.raise_injected_fault() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
		DECLARE s text;
		BEGIN
			SELECT state INTO s FROM public.injected_fault;
			IF s IS NOT NULL THEN RAISE EXCEPTION 'injected fault' USING ERRCODE = s; END IF;
			RETURN NEW;
		END $$`)
	s.exec(t, `CREATE TRIGGER injected_fault BEFORE INSERT ON qinglong.runs FOR EACH ROW EXECUTE FUNCTION public.raise_injected_fault()`)
	d, p := s.dueTicket(t, s.runtime)
	before, _ := s.row(t.Context(), d.trigger.TriggerID)

	for _, c := range []struct {
		state   string
		reason  schedule.Reason
		outcome schedule.Outcome
	}{
		{"53200", schedule.ReasonOutOfSharedMemory, schedule.Failed},
		{"53300", schedule.ReasonTooManyConnections, schedule.Failed},
		{"53100", schedule.ReasonDiskFull, schedule.Failed},
		{"53000", schedule.ReasonInsufficientResources, schedule.Failed},
		{"57014", schedule.ReasonStatementCancelled, schedule.Failed},
		{"57000", schedule.ReasonOperatorIntervention, schedule.Failed},
		{"55P03", schedule.ReasonLockNotAvailable, schedule.Unavailable},
		{"25P03", schedule.ReasonIdleInTransactionTimeout, schedule.Failed},
		{"40001", schedule.ReasonRetriesExhausted, schedule.Failed},
		{"40P01", schedule.ReasonRetriesExhausted, schedule.Failed},
		{"42501", schedule.ReasonInsufficientPrivilege, schedule.Failed},
		{"23514", schedule.ReasonConstraintViolation, schedule.Failed},
		{"42P01", schedule.ReasonSchemaError, schedule.Failed},
		{"XX000", schedule.ReasonWriteFailed, schedule.Failed},
		{"08006", schedule.ReasonConnectionLost, schedule.Unavailable},
		{"57P01", schedule.ReasonConnectionLost, schedule.Unavailable},
	} {
		s.exec(t, `UPDATE public.injected_fault SET state = $1`, c.state)
		res, err := s.runtime.ScheduleCommit(t.Context(), p)
		if res.Outcome != c.outcome || res.Reason != c.reason || err == nil {
			t.Errorf("SQLSTATE %s: %s (%s), %v; want %s (%s)", c.state, res.Outcome, res.Reason, err, c.outcome, c.reason)
		}
		// Only a lost connection trips the availability latch: a lock wait
		// that ran out is unavailable too, but the session still serves.
		if lost := errors.Is(err, schedule.ErrUnavailable); lost != (c.reason == schedule.ReasonConnectionLost) {
			t.Errorf("SQLSTATE %s: wraps ErrUnavailable %v", c.state, lost)
		}
		if c.state == "XX000" && StateCode(err) != codeDatabaseError {
			t.Errorf("SQLSTATE XX000: state code %q, want %q", StateCode(err), codeDatabaseError)
		}
		// Only a missing privilege, a refusing or drifted schema and an
		// unclassified error are beyond what waiting cures.
		permanent := c.state == "XX000" || c.reason == schedule.ReasonInsufficientPrivilege ||
			c.reason == schedule.ReasonConstraintViolation || c.reason == schedule.ReasonSchemaError
		if Transient(err) == permanent {
			t.Errorf("SQLSTATE %s: transient %v", c.state, Transient(err))
		}
		s.requireNothingWritten(t, d.trigger.TriggerID, before)
	}
	s.exec(t, `UPDATE public.injected_fault SET state = NULL`)
	if res, err := s.runtime.ScheduleCommit(t.Context(), p); err != nil || res.Outcome != schedule.Admitted {
		t.Fatalf("the same ticket without the fault: %+v, %v; want admitted", res, err)
	}
}

// A session the server ends (here by the idle-in-transaction bound) is a
// lost connection: the server reports it with a FATAL error whose SQLSTATE
// (25P03) is not of the connection class, and the connection is closed.
// The same SQLSTATE raised as a plain ERROR leaves the session alive and is
// no loss; a FATAL refusal while connecting (a missing database) is
// configuration, never a loss.
func TestASessionTheServerEndedIsALostConnection(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	conn := s.rawConn(t)
	if _, err := conn.Exec(t.Context(), "SET idle_in_transaction_session_timeout = 200"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(t.Context(), "BEGIN"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(600 * time.Millisecond) // idle in the transaction past its bound
	_, err := conn.Exec(t.Context(), "SELECT 1")
	if sqlState(err) != stateIdleInTxTimeout || !conn.IsClosed() {
		t.Fatalf("after the idle bound: %v (closed %v); want 25P03 on a closed connection", err, conn.IsClosed())
	}
	if !connectionLost(err) {
		t.Fatalf("a session the server ended (%v) is not counted as a lost connection", err)
	}

	alive := s.rawConn(t)
	_, err = alive.Exec(t.Context(), `DO $$ BEGIN RAISE EXCEPTION 'raised' USING ERRCODE = '25P03'; END $$`)
	if sqlState(err) != stateIdleInTxTimeout || alive.IsClosed() || connectionLost(err) {
		t.Fatalf("25P03 raised as an ERROR: %v (closed %v, lost %v); want a live session and no loss", err, alive.IsClosed(), connectionLost(err))
	}

	_, err = pgx.Connect(t.Context(), s.withURL(t, func(u *url.URL) { u.Path = "/no_such_database" }))
	if !sessionEnded(err) || connectionLost(err) {
		t.Fatalf("connecting to a missing database: %v; want a FATAL refusal that is not a lost connection", err)
	}
}

// A connection that cannot be made says why, for the operator's log: the
// server's refusal with its SQLSTATE, or the network's reason with the
// address; never the password or the URL.
func TestAConnectionFailureNamesItsCauseWithoutThePassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, err := url.Parse(e.url(RoleRuntime))
	if err != nil {
		t.Fatal(err)
	}
	password, _ := u.User.Password()
	u.Path = "/no_such_database"
	_, err = pgx.Connect(t.Context(), u.String())
	if cause := ConnectCause(err); !strings.Contains(cause, "does not exist") || !strings.Contains(cause, "3D000") || strings.Contains(cause, password) {
		t.Errorf("a database that does not exist: cause %q (from %v), want the server's refusal with its SQLSTATE and no password", cause, err)
	}
	addr := freeport.Refused(t)
	u.Host = addr
	_, err = pgx.Connect(t.Context(), u.String())
	if cause := ConnectCause(err); !strings.Contains(cause, addr) || !strings.Contains(cause, "refused") || strings.Contains(cause, password) {
		t.Errorf("a closed port: cause %q (from %v), want the address and the system's reason, no password", cause, err)
	}
	if cause := ConnectCause(qlerror.New(qlerror.Invalid, "not a connection")); cause != "" {
		t.Errorf("an error of no connection has cause %q, want none", cause)
	}
}
