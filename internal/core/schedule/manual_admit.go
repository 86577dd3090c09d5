package schedule

import (
	"fmt"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// ManualKey is the idempotency key of a run-now request: the same trigger
// and request id always name the same Run.
func ManualKey(triggerID, requestID string) string {
	return fmt.Sprintf("ql3:manual:v1:%s:%s", triggerID, requestID)
}

// CheckTriggerID refuses a manual request whose trigger id is not one.
func CheckTriggerID(triggerID string) error {
	if err := ids.Validate("trigger id", triggerID); err != nil {
		return qlerror.Wrap(qlerror.Invalid, err, "give a trigger id (triggerId in `ql triggers list -o json`)").Because(RefusalNotATriggerID)
	}
	return nil
}

// RunNowKey checks a run-now request and returns the request id it is
// keyed on and its idempotency key.
func RunNowKey(r RunNowRequest) (requestID, key string, err error) {
	if err := CheckTriggerID(r.TriggerID); err != nil {
		return "", "", err
	}
	if requestID, err = RequestIDOf(r); err != nil {
		return "", "", err
	}
	return requestID, ManualKey(r.TriggerID, requestID), nil
}

// The reasons of the refusals of a manual request (run now, re-run,
// backfill) that a user can cause: the console says each in the page's
// language.
const (
	RefusalTriggerMissing  qlerror.Reason = "trigger_missing"
	RefusalRunMissing      qlerror.Reason = "run_missing"
	RefusalRunNotFinished  qlerror.Reason = "run_not_finished"
	RefusalProjectArchived qlerror.Reason = "project_archived"
	RefusalTriggerDisabled qlerror.Reason = "trigger_disabled"
	RefusalRepublishing    qlerror.Reason = "trigger_republishing"
	// An id that is not one, typed into an address or a command: the
	// stores refuse them with these too.
	RefusalNotATriggerID qlerror.Reason = "not_a_trigger_id"
	RefusalNotARunID     qlerror.Reason = "not_a_run_id"
)

// TriggerMissing is the error of a manual request whose trigger does not
// exist.
func TriggerMissing(triggerID string) error {
	return qlerror.New(qlerror.NotFound, "trigger %s does not exist; `ql triggers list` shows the triggers", triggerID).Because(RefusalTriggerMissing)
}

// RerunKey is the idempotency key of a re-run request: the same Run and
// request id always name the same re-run.
func RerunKey(runID, requestID string) string {
	return fmt.Sprintf("ql3:rerun:v1:%s:%s", runID, requestID)
}

// RerunRequestKey checks a re-run request and returns the request id it
// is keyed on and its idempotency key.
func RerunRequestKey(r RerunRequest) (requestID, key string, err error) {
	if err := ids.Validate("run id", r.RunID); err != nil {
		return "", "", qlerror.Wrap(qlerror.Invalid, err, "give a run id as printed by `ql runs list`").Because(RefusalNotARunID)
	}
	if requestID, err = RequestIDOf(RunNowRequest{RequestID: r.RequestID}); err != nil {
		return "", "", err
	}
	return requestID, RerunKey(r.RunID, requestID), nil
}

// NotFinishedError refuses a re-run of a Run that has not ended: a re-run
// repeats a finished Run, it never runs beside the original.
type NotFinishedError struct {
	RunID string
	State run.State
}

func (e *NotFinishedError) Error() string {
	return fmt.Sprintf("run %s is %s, and only a finished Run can be re-run; wait for it to end, or cancel it with `ql runs cancel %s`", e.RunID, e.State, e.RunID)
}

// Unwrap gives the refusal its code, FailedPrecondition, in the same
// words.
func (e *NotFinishedError) Unwrap() error {
	return qlerror.New(qlerror.FailedPrecondition, "%s", e.Error()).Because(RefusalRunNotFinished)
}

// RerunRefusal is the error of a re-run of the Run runID in state, nil
// when that state is a finished one or lost: a lost Run's attempt ended
// without an outcome (its server or worker went away and no retry is left),
// so nothing else ever moves it on, and re-running it is how a user gets
// the command run.
func RerunRefusal(runID string, state run.State) error {
	if state.Terminal() || state == run.Lost {
		return nil
	}
	return &NotFinishedError{RunID: runID, State: state}
}

// RunMissing is the error of a re-run request whose Run does not exist.
func RunMissing(runID string) error {
	return qlerror.New(qlerror.NotFound, "run %s does not exist (retention may have deleted it); `ql runs list` shows the runs", runID).Because(RefusalRunMissing)
}

// MaxRequestIDLen bounds a run-now request id, so its key stays within
// every adapter's key length.
const MaxRequestIDLen = 128

// RequestIDOf is the request id a run-now request is keyed on: r's own,
// checked (1–128 letters, digits and ._-), or a generated one when r gives
// none.
func RequestIDOf(r RunNowRequest) (string, error) {
	if r.RequestID == "" {
		return ids.New(), nil
	}
	if len(r.RequestID) > MaxRequestIDLen {
		return "", qlerror.New(qlerror.Invalid, "request id: %d characters, at most %d", len(r.RequestID), MaxRequestIDLen)
	}
	for _, c := range r.RequestID {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return "", qlerror.New(qlerror.Invalid, "request id %q: use letters, digits, '.', '_' and '-' only", r.RequestID)
		}
	}
	return r.RequestID, nil
}

// DefaultBackfillMax is how many occurrences a backfill considers when its
// request names no cap; MaxBackfill is the largest cap one request may ask.
const (
	DefaultBackfillMax = 1_000
	MaxBackfill        = 100_000
)

// CheckBackfill validates a backfill request against the store's time
// nowMs and returns its cap. Its messages name each setting as the CLI
// (--to) and the API (toMs) spell it: both reach here.
func CheckBackfill(r BackfillRequest, nowMs int64) (int, error) {
	switch {
	case r.FromMs > r.ToMs:
		return 0, qlerror.New(qlerror.Invalid, "backfill: the window's start (--from, fromMs) is after its end (--to, toMs); give the start first")
	case r.FromMs > nowMs:
		return 0, qlerror.New(qlerror.Invalid, "backfill: the window starts in the future; backfill only admits occurrences that are already due")
	case r.ToMs > nowMs:
		return 0, qlerror.New(qlerror.Invalid, "backfill: the window's end (--to, toMs) is in the future (the store's time is %s); end the window at or before now",
			time.UnixMilli(nowMs).UTC().Format(time.RFC3339Nano))
	case r.Max < 0 || r.Max > MaxBackfill:
		return 0, qlerror.New(qlerror.Invalid, "backfill: the cap (--max, max) %d is outside 1 … %d", r.Max, MaxBackfill)
	case r.Max == 0:
		return DefaultBackfillMax, nil
	}
	return r.Max, nil
}

// BackfillPlan checks r against the store's time nowMs and lists the
// occurrences it asks for (BackfillOccurrences), with the result's
// Occurrences, Truncated and LastMs filled in.
func BackfillPlan(tk Ticket, r BackfillRequest, nowMs int64) ([]int64, BackfillResult, error) {
	limit, err := CheckBackfill(r, nowMs)
	if err != nil {
		return nil, BackfillResult{}, err
	}
	occ, more, err := BackfillOccurrences(tk, r.FromMs, r.ToMs, limit)
	if err != nil {
		return nil, BackfillResult{}, qlerror.Wrap(qlerror.FailedPrecondition, err, "trigger %s: its cron no longer parses", r.TriggerID)
	}
	out := BackfillResult{Occurrences: len(occ), Truncated: more}
	if len(occ) > 0 {
		out.LastMs = occ[len(occ)-1]
	}
	return occ, out, nil
}

// ManualTicket is the ticket a manual admission stands on: the stored
// schedule row and definitions of a trigger, as read under the adapter's
// write lock, so VerifySnapshot checks exactly what an admission needs
// that does not depend on the clock (an active project, a current,
// consistent, enabled revision pinning the current task revision).
func ManualTicket(triggerID string, s Stored) Ticket {
	t := s.Trigger
	return Ticket{Snapshot: Snapshot{
		ProjectID:            t.ProjectID,
		TriggerID:            triggerID,
		TriggerRevision:      s.RowRevision,
		TriggerContentDigest: t.ContentDigest,
		TriggerCreatedAtMs:   t.CreatedAtMs,
		Cron:                 t.Spec.Cron,
		TaskID:               t.TaskID,
		TaskRevision:         t.TaskRevision,
		TaskContentDigest:    t.TaskContentDigest,
		NextFireAtMs:         s.NextFireAtMs,
		StateVersion:         s.StateVersion,
		Pause:                s.Pause,
	}}
}

// VerifyManual is the ticket a manual admission of triggerID stands on,
// verified against s as read under the adapter's write lock: the refusal
// ManualRefusal words when it may not go ahead.
func VerifyManual(triggerID string, s Stored) (Ticket, error) {
	tk := ManualTicket(triggerID, s)
	if reason := VerifySnapshot(tk, s); reason != "" {
		if reason == ReasonTriggerNotSchedulable {
			if err := disabledRefusal(triggerID, s); err != nil {
				return tk, err
			}
		}
		return tk, ManualRefusal(triggerID, reason)
	}
	return tk, nil
}

// disabledRefusal names a disabled trigger and the command that enables it
// without editing its file; nil when the trigger is enabled (its task is
// then the disabled one, which only a definitions file enables, and an
// apply refuses an enabled trigger of a disabled task anyway).
func disabledRefusal(triggerID string, s Stored) error {
	if s.Trigger.Spec.Enabled {
		return nil
	}
	name := s.Trigger.Spec.Name
	return qlerror.New(qlerror.FailedPrecondition, "trigger %s (%s) is disabled: nothing of it runs, run now and backfill included; enable it with `ql triggers enable %s`, or set enabled: true on it in its definitions file and `ql apply` it", name, triggerID, name).Because(RefusalTriggerDisabled)
}

// ManualRefusal explains why a verified manual admission cannot go ahead,
// as VerifySnapshot's reason says.
func ManualRefusal(triggerID string, reason Reason) error {
	switch reason {
	case ReasonProjectInactive:
		return qlerror.New(qlerror.FailedPrecondition, "trigger %s belongs to an archived project: nothing of it runs (run now, re-run and backfill included) until the project is active again; to reactivate it, set status: active in the project's definitions file and `ql apply` it", triggerID).Because(RefusalProjectArchived)
	case ReasonTriggerNotSchedulable:
		return qlerror.New(qlerror.FailedPrecondition, "trigger %s (or its task) is disabled; set enabled: true and `ql apply` it first", triggerID).Because(RefusalTriggerDisabled)
	case ReasonTaskRevisionChanged, ReasonTriggerRevisionChanged:
		return qlerror.New(qlerror.Conflict, "trigger %s is being republished; try again in a moment", triggerID).Because(RefusalRepublishing)
	}
	return qlerror.New(qlerror.Internal, "trigger %s fails closed (%s): its stored definitions contradict themselves; restore them or republish the trigger", triggerID, reason)
}

// BackfillOccurrences lists the nominal occurrences of the ticket's cron in
// [fromMs, toMs] that lie within its startAt/endAt bounds and that the
// clock has already decided, at most limit of them, and whether more
// follow (the last listed is then where the window was cut).
//
// The occurrences from the row's cursor on (from the revision's creation
// while it has none) are the clock's still: it admits or passes each of
// them with the same idempotency key, and would find a backfilled one's
// Run in its way, so a backfill never takes them.
func BackfillOccurrences(tk Ticket, fromMs, toMs int64, limit int) (occ []int64, more bool, err error) {
	s, err := parseTicket(tk)
	if err != nil {
		return nil, false, err
	}
	c := tk.Cron
	lo := max(fromMs, c.StartAtMs)
	hi := toMs
	if c.EndAtMs != 0 {
		hi = min(hi, c.EndAtMs)
	}
	if tk.NextFireAtMs != nil {
		hi = min(hi, *tk.NextFireAtMs-1)
	} else {
		hi = min(hi, tk.TriggerCreatedAtMs-1)
	}
	for at, ok := s.Next(lo - 1); ok && at <= hi; at, ok = s.Next(at) {
		if len(occ) == limit {
			return occ, true, nil
		}
		occ = append(occ, at)
	}
	return occ, false, nil
}
