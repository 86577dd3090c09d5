package schedule

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/qinglong/qinglong/internal/core/loop"
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
	// Repeats, when set, keeps the failure of a revision's ticket that
	// every round meets again from being logged each round.
	Repeats *Repeats
}

// RepeatEvery is how often a failure Repeats holds back is logged at
// warn again while it lasts.
const RepeatEvery = time.Hour

// maxRepeats bounds Repeats: when full it starts over, logging each
// failure once more.
const maxRepeats = 4096

// Repeats remembers when the failures of trigger revisions' tickets were
// last logged at warn. A revision whose stored cron this host cannot read
// (a zone its zone database lacks, cron_invalid) or whose stored policy
// this build does not know (decision_failed) stays due and fails each
// time its row is taken: logged each time, it would bury every other line of
// the log under the same one. It is logged at warn when first met, again
// after RepeatEvery while it lasts, and at debug in between; a republish
// (a new revision) or another reason is a new failure, logged at once.
//
// It also remembers when tickets failing alike for a cause outside their
// triggers (a full disk, a lost connection) were last warned of: such a
// cause fails every round while it lasts, and is warned of again only
// after loop.QuietEvery, as the executor's and the notifications' errors
// are, with how many rounds met it in between (held_back).
type Repeats struct {
	mu     sync.Mutex
	logged map[repeatKey]time.Time
	shared map[sharedCause]*sharedSaid
	// cancels is, by trigger id, when its cancels before a start were
	// last warned of (overlapCancelsAgain).
	cancels map[string]*sharedSaid
	// now is the clock (time.Now; a test's own).
	now func() time.Time
}

type repeatKey struct {
	triggerID string
	revision  int64
	reason    Reason
}

// NewRepeats returns an empty Repeats on the system clock.
func NewRepeats() *Repeats {
	return &Repeats{logged: map[repeatKey]time.Time{}, shared: map[sharedCause]*sharedSaid{}, cancels: map[string]*sharedSaid{}, now: time.Now}
}

// sharedSaid is when a cause outside the triggers (or a trigger's cancels
// before a start) was last warned of, and how many rounds met it (how many
// cancels) since.
type sharedSaid struct {
	at   time.Time
	held int
}

// sharedAgain reports whether a cause outside the triggers was warned of
// less than loop.QuietEvery ago, and counts this round's meeting of it as
// held back; when it was not, it notes the cause warned of now and returns
// how many rounds met it since it last was.
func (r *Repeats) sharedAgain(c sharedCause) (again bool, heldBack int) {
	if r == nil {
		return false, 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return saidAgain(r.shared, c, 1, loop.QuietEvery, r.now())
}

// saidAgain is sharedAgain's and overlapCancelsAgain's one rule, under the
// caller's lock: when key was warned of less than every ago it holds n
// back and says again; otherwise it notes key warned of at now and returns
// how many were held back since. The map is cleared when full, so a cause
// that comes back after that is warned of at once rather than never.
func saidAgain[K comparable](said map[K]*sharedSaid, key K, n int, every time.Duration, now time.Time) (again bool, heldBack int) {
	s, ok := said[key]
	if ok && now.Sub(s.at) < every {
		s.held += n
		return true, 0
	}
	if !ok {
		if len(said) >= maxRepeats {
			clear(said)
		}
		s = &sharedSaid{}
		said[key] = s
	}
	heldBack = s.held
	s.at, s.held = now, 0
	return false, heldBack
}

// again reports whether err, a ticket's failure, was logged at warn less
// than RepeatEvery ago, and notes it logged now when it was not. Only a
// revision's own failure (a TicketError with its Revision) repeats.
func (r *Repeats) again(err error) bool {
	var te *TicketError
	if r == nil || !errors.As(err, &te) || te.Revision == 0 {
		return false
	}
	k := repeatKey{te.TriggerID, te.Revision, te.Reason}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if at, ok := r.logged[k]; ok && now.Sub(at) < RepeatEvery {
		return true
	}
	if len(r.logged) >= maxRepeats {
		clear(r.logged)
	}
	r.logged[k] = now
	return false
}

// RoundObserver records rounds for monitoring (the metrics package).
type RoundObserver interface {
	ObserveRound(Summary)
	RoundFailed()
}

// Round logs the round's summary — at info when it took rows, at debug
// when it found nothing, or nothing but failures logged already — and one
// record per ticket that failed, with its trigger, outcome and reason. A
// round cut short by a stop abandons its remaining tickets on purpose:
// those are logged at debug, not as warnings; so is a failure Repeats
// holds back (logged at warn less than RepeatEvery ago). Tickets that fail
// alike for a cause outside their trigger (a full disk, a lost connection
// fails every ticket of the round) are one warning with their count,
// `tickets`, and the rest at debug: a page of 256 would otherwise log 256
// identical warnings each round the cause lasts. That warning is said once
// a loop.QuietEvery while the cause lasts (Repeats), with the rounds held
// back in between (`held_back`); a round whose every taken ticket failed
// so, unsaid, is at debug too, so an outage of an hour writes 60 warnings,
// not 3,600 warnings and 3,600 round lines.
func (d Diagnostics) Round(ctx context.Context, s Summary) {
	ticketLevels := make([]slog.Level, len(s.Errors))
	alike := make([]int, len(s.Errors))
	firstOf := map[sharedCause]int{}
	repeated := 0
	for i, err := range s.Errors {
		switch {
		case ctx.Err() != nil:
			ticketLevels[i] = slog.LevelDebug
		case d.Repeats.again(err):
			ticketLevels[i] = slog.LevelDebug
			repeated++
		default:
			ticketLevels[i] = slog.LevelWarn
			cause, shared := causeOutsideItsTrigger(err)
			if !shared {
				break
			}
			if first, seen := firstOf[cause]; seen {
				ticketLevels[i] = slog.LevelDebug
				alike[first]++
				break
			}
			firstOf[cause], alike[i] = i, 1
		}
	}
	heldBack := map[int]int{}
	for _, first := range firstOf {
		again, held := d.Repeats.sharedAgain(causeOf(s.Errors[first]))
		if again {
			ticketLevels[first] = slog.LevelDebug
			repeated += alike[first]
		}
		heldBack[first] = held
	}
	level := slog.LevelDebug
	if s.Taken > repeated {
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
	d.overlapCancels(ctx, s.CancelledUnstarted)
	for i, err := range s.Errors {
		attrs := append(d.attrs(CodeTicketFailed), ErrorAttrs(err)...)
		if alike[i] > 1 {
			attrs = append(attrs, slog.Int("tickets", alike[i]))
		}
		if heldBack[i] > 0 {
			attrs = append(attrs, slog.Int("held_back", heldBack[i]))
		}
		d.Log.Log(ctx, ticketLevels[i], "scheduler ticket failed", attrs...)
	}
}

// sharedCause is what tickets failing alike have in common.
type sharedCause struct {
	code    qlerror.Code
	outcome Outcome
	reason  Reason
	message string
}

// causeOf is the cause of a ticket's failure that causeOutsideItsTrigger
// found shared.
func causeOf(err error) sharedCause {
	c, _ := causeOutsideItsTrigger(err)
	return c
}

// causeOutsideItsTrigger is the cause of a ticket's failure when it is not
// the trigger's own: a failure of a revision (Repeats keeps those apart,
// trigger by trigger) has none.
func causeOutsideItsTrigger(err error) (sharedCause, bool) {
	var te *TicketError
	if !errors.As(err, &te) || te.Revision != 0 {
		return sharedCause{}, false
	}
	return sharedCause{code: qlerror.CodeOf(err), outcome: te.Outcome, reason: te.Reason, message: safeMessage(err)}, true
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
		slog.Float64("commit_ms", tenthsOfMs(s.Commit)), slog.Int("commit_groups", s.Groups), slog.Int("unreadable", s.Unreadable)}
	for _, o := range Outcomes {
		attrs = append(attrs, slog.Int(string(o), s.Counts[o]))
	}
	if !s.Started.IsZero() {
		attrs = append(attrs, slog.Time("started", s.Started))
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
