package coordinator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/qinglong/qinglong/internal/qlerror"
	"github.com/qinglong/qinglong/internal/schedule"
)

// Stable diagnostic codes. Operators and tests match on these, never on the
// message text.
const (
	CodeStarted       = "scheduler.started"
	CodeStopped       = "scheduler.stopped"
	CodeRound         = "scheduler.round"
	CodeRoundFailed   = "scheduler.round_failed"
	CodeTicketFailed  = "scheduler.ticket_failed"
	CodeUnavailable   = "scheduler.database_unavailable"
	CodeDrainTimedOut = "scheduler.drain_timeout"
)

// errorAttrs describes err for the low-sensitivity sink: the stable error
// code and the adapter's own message, but never the wrapped driver error,
// whose text can carry SQL parameters or server detail.
func errorAttrs(err error) []any {
	code := qlerror.CodeOf(err)
	var qe *qlerror.Error
	if !errors.As(err, &qe) && errors.Is(err, schedule.ErrUnavailable) {
		// The commit path reports a lost connection without a coded error.
		code = qlerror.Unavailable
	}
	attrs := []any{slog.String("error_code", string(code))}
	var te *schedule.TicketError
	if errors.As(err, &te) {
		attrs = append(attrs, slog.String("trigger_id", te.TriggerID), slog.String("outcome", string(te.Outcome)))
		if te.Reason != "" {
			attrs = append(attrs, slog.String("reason", string(te.Reason)))
		}
	}
	var st sqlStater
	if errors.As(err, &st) {
		attrs = append(attrs, slog.String("sqlstate", st.SQLState()))
	}
	return append(attrs, slog.String("error", safeMessage(err)))
}

// sqlStater is what a database error reports: its SQLSTATE, a stable code
// PostgreSQL documents, safe to log where the server's message is not.
type sqlStater interface{ SQLState() string }

func safeMessage(err error) string {
	var qe *qlerror.Error
	var te *schedule.TicketError
	switch {
	case errors.As(err, &qe):
		return qe.Msg
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "interrupted"
	case errors.Is(err, schedule.ErrUnavailable):
		return schedule.ErrUnavailable.Error()
	case errors.As(err, &te):
		// The store's own error is uncoded driver text; the ticket's outcome
		// and reason (logged beside this) say what happened.
		msg := "commit of the ticket ended " + string(te.Outcome)
		if te.Reason != "" {
			msg += " (" + string(te.Reason) + ")"
		}
		return msg
	}
	return fmt.Sprintf("uncoded %T", err)
}

func summaryAttrs(owner string, s schedule.Summary) []any {
	attrs := []any{
		slog.String("owner", owner),
		slog.Int("taken", s.Taken),
		slog.Int64("duration_ms", s.Duration.Milliseconds()),
	}
	for _, o := range schedule.Outcomes {
		attrs = append(attrs, slog.Int(string(o), s.Counts[o]))
	}
	if s.FirstAcquiredMs != nil {
		attrs = append(attrs, slog.Int64("first_acquired_ms", *s.FirstAcquiredMs), slog.Int64("last_acquired_ms", *s.LastAcquiredMs))
	}
	return attrs
}
