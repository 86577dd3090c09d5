package schedule

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Stable diagnostic codes of scheduling rounds, the same in every profile.
// Operators and tests match on these, never on the message text.
const (
	CodeRound        = "scheduler.round"
	CodeRoundFailed  = "scheduler.round_failed"
	CodeTicketFailed = "scheduler.ticket_failed"
)

// Diagnostics writes one scheduler's round records to its low-sensitivity
// log: ids, counts, outcomes, reasons and error codes — never driver text,
// SQL parameters, commands or environments.
type Diagnostics struct {
	Log *slog.Logger
	// Owner names the scheduler in every record (the cluster replica's
	// claim owner); empty leaves it out.
	Owner string
	// Extra, when set, adds attributes to every round record (the
	// cluster's connection pool counters).
	Extra func() []any
	// Metrics, when set, is told every round and every failed round.
	Metrics RoundObserver
}

// RoundObserver records rounds for monitoring (the metrics package).
type RoundObserver interface {
	ObserveRound(Summary)
	RoundFailed()
}

// Round logs the round's summary — at info when it took rows, at debug
// when it found nothing — and one record per ticket that failed, with its
// trigger, outcome and reason. A round cut short by a stop abandons its
// remaining tickets on purpose: those are logged at debug, not as warnings.
func (d Diagnostics) Round(ctx context.Context, s Summary) {
	level := slog.LevelDebug
	if s.Taken > 0 {
		level = slog.LevelInfo
	}
	attrs := append(d.attrs(CodeRound), summaryAttrs(s)...)
	if d.Extra != nil {
		attrs = append(attrs, d.Extra()...)
	}
	d.Log.Log(ctx, level, "scheduler round", attrs...)
	if d.Metrics != nil {
		d.Metrics.ObserveRound(s)
	}
	ticketLevel := slog.LevelWarn
	if ctx.Err() != nil {
		ticketLevel = slog.LevelDebug
	}
	for _, err := range s.Errors {
		d.Log.Log(ctx, ticketLevel, "scheduler ticket failed", append(d.attrs(CodeTicketFailed), ErrorAttrs(err)...)...)
	}
}

// RoundFailed logs a round that failed as a whole (its take, or its
// configuration); the loop goes on.
func (d Diagnostics) RoundFailed(err error) {
	if d.Metrics != nil {
		d.Metrics.RoundFailed()
	}
	d.Log.Warn("scheduler round failed", append(d.attrs(CodeRoundFailed), ErrorAttrs(err)...)...)
}

func (d Diagnostics) attrs(code string) []any {
	attrs := []any{slog.String("code", code)}
	if d.Owner != "" {
		attrs = append(attrs, slog.String("owner", d.Owner))
	}
	return attrs
}

func summaryAttrs(s Summary) []any {
	attrs := []any{slog.Int("taken", s.Taken), slog.Int64("duration_ms", s.Duration.Milliseconds()),
		slog.Float64("take_ms", tenthsOfMs(s.Take)), slog.Float64("decide_ms", tenthsOfMs(s.Decide)),
		slog.Float64("commit_ms", tenthsOfMs(s.Commit)), slog.Int("commit_groups", s.Groups)}
	for _, o := range Outcomes {
		attrs = append(attrs, slog.Int(string(o), s.Counts[o]))
	}
	if s.FirstAcquiredMs != nil {
		attrs = append(attrs, slog.Int64("first_acquired_ms", *s.FirstAcquiredMs), slog.Int64("last_acquired_ms", *s.LastAcquiredMs))
	}
	return attrs
}

// tenthsOfMs is d in milliseconds to a tenth: a stage of a round is often
// shorter than a millisecond.
func tenthsOfMs(d time.Duration) float64 { return float64(d/(100*time.Microsecond)) / 10 }

// ErrorAttrs describes err for the low-sensitivity log: the stable error
// code, the ticket's trigger, outcome and reason when err is a
// TicketError, the database's documented error code (SQLSTATE) when the
// driver reports one, and the adapter's own message — but never the
// wrapped driver error, whose text can carry SQL parameters or server
// detail.
func ErrorAttrs(err error) []any {
	code := qlerror.CodeOf(err)
	var qe *qlerror.Error
	if !errors.As(err, &qe) && errors.Is(err, ErrUnavailable) {
		// The commit path reports a lost connection without a coded error.
		code = qlerror.Unavailable
	}
	attrs := []any{slog.String("error_code", string(code))}
	var te *TicketError
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

// sqlStater is what a PostgreSQL driver error reports: its SQLSTATE, a
// stable code the server documents, safe to log where its message is not.
type sqlStater interface{ SQLState() string }

func safeMessage(err error) string {
	var qe *qlerror.Error
	var te *TicketError
	switch {
	case errors.As(err, &qe):
		return qe.Msg
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "interrupted"
	case errors.Is(err, ErrUnavailable):
		return ErrUnavailable.Error()
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
