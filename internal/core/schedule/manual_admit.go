package schedule

import (
	"fmt"

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
		return NotATriggerID(triggerID, err)
	}
	return nil
}

// NotATriggerID is the refusal of value, given as a trigger's id, which
// err says is none; its params carry the value as given (cut as
// qlerror.Echoed cuts it), as every refusal of a value that is no id does.
func NotATriggerID(value string, err error) error {
	return qlerror.Wrap(qlerror.Invalid, err, "give a trigger id (triggerId in `ql triggers list -o json`)").Because(RefusalNotATriggerID, "value", qlerror.Echoed(value))
}

// NotARunID is the refusal of value, given as a Run's id, which err says
// is none, its params carrying the value as NotATriggerID's do.
func NotARunID(value string, err error) error {
	return qlerror.Wrap(qlerror.Invalid, err, "give a run id as printed by `ql runs list`").Because(RefusalNotARunID, "value", qlerror.Echoed(value))
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
	// RefusalStalePin is a trigger that pins an older revision of its
	// task than the task's current one (a task published again without
	// it): nothing of it runs until it is published again with its task.
	RefusalStalePin qlerror.Reason = "trigger_pins_older_task_revision"
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
		return "", "", NotARunID(r.RunID, err)
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

// RunNotFound is the error of a read of a Run that does not exist: the
// stores' answer, and the API's to a project-bound token asking for
// another project's Run, which must read exactly alike.
func RunNotFound(runID string) error {
	return qlerror.New(qlerror.NotFound, "run %s does not exist; list runs with `ql runs list`", runID).Because(RefusalRunMissing)
}

// RunMissing is the error of a re-run request whose Run does not exist.
func RunMissing(runID string) error {
	return qlerror.New(qlerror.NotFound, "run %s does not exist (retention may have deleted it); `ql runs list` shows the runs", runID).Because(RefusalRunMissing)
}

// MaxRequestIDLen bounds a run-now request id, so its key stays within
// every adapter's key length.
const MaxRequestIDLen = 128

// RefusalRequestIDShape refuses a request id longer than MaxRequestIDLen
// or holding a character other than letters, digits and ._-: a client
// that retries with it must learn that from the reason, not the words.
const RefusalRequestIDShape qlerror.Reason = "request_id_shape"

// RequestIDOf is the request id a run-now request is keyed on: r's own,
// checked (1–128 letters, digits and ._-), or a generated one when r gives
// none.
func RequestIDOf(r RunNowRequest) (string, error) {
	if r.RequestID == "" {
		return ids.New(), nil
	}
	if len(r.RequestID) > MaxRequestIDLen {
		return "", qlerror.New(qlerror.Invalid, "request id: %d characters, at most %d", len(r.RequestID), MaxRequestIDLen).
			Because(RefusalRequestIDShape, "max", MaxRequestIDLen)
	}
	for _, c := range r.RequestID {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return "", qlerror.New(qlerror.Invalid, "request id %q: use letters, digits, '.', '_' and '-' only", r.RequestID).
				Because(RefusalRequestIDShape, "max", MaxRequestIDLen)
		}
	}
	return r.RequestID, nil
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
		return tk, ManualRefusal(s.Trigger.Spec.Name, triggerID, reason)
	}
	return tk, nil
}

// disabledRefusal names a disabled trigger and the command that enables it
// without editing its file; nil when the trigger is enabled (its task is
// then the disabled one, which only a definitions file enables, and an
// apply refuses an enabled trigger of a disabled task anyway). The command
// names the trigger by its id: its bare name may be another project's
// trigger too, and the command would then be refused as ambiguous.
func disabledRefusal(triggerID string, s Stored) error {
	if s.Trigger.Spec.Enabled {
		return nil
	}
	return DisabledRefusal(s.Trigger.Spec.Name, triggerID, "ql triggers enable "+triggerID)
}

// DisabledRefusal is the refusal of a disabled trigger named name (id
// triggerID), enable being the command that enables it as the caller can
// word it (a CLI that knows the trigger's project and where it found the
// database words it to be pasted as it is).
func DisabledRefusal(name, triggerID, enable string) *qlerror.Error {
	return qlerror.New(qlerror.FailedPrecondition, "trigger %s (%s) is disabled: nothing of it runs, run now and backfill included; enable it with `%s`, or set enabled: true on it in its definitions file and `ql apply -f FILE` it", name, triggerID, enable).Because(RefusalTriggerDisabled, "trigger", triggerID)
}

// ManualRefusal explains why a verified manual admission of trigger name
// (id triggerID) cannot go ahead, as VerifySnapshot's reason says. The
// trigger is named as the user names it, its id beside it.
func ManualRefusal(name, triggerID string, reason Reason) error {
	trigger := fmt.Sprintf("%s (%s)", name, triggerID)
	switch reason {
	case ReasonProjectInactive:
		return qlerror.New(qlerror.FailedPrecondition, "trigger %s belongs to an archived project: nothing of it runs (run now, re-run and backfill included) until the project is active again; to reactivate it, set status: active in the project's definitions file and `ql apply -f FILE` it", trigger).Because(RefusalProjectArchived)
	case ReasonTriggerNotSchedulable:
		return qlerror.New(qlerror.FailedPrecondition, "trigger %s (or its task) is disabled; set enabled: true and `ql apply -f FILE` it first", trigger).Because(RefusalTriggerDisabled)
	case ReasonTaskRevisionChanged:
		// Never a passing state: a definitions file publishes a task and
		// every trigger of it in one transaction. Callers that can read
		// the definitions say which revisions, or that the task is
		// disabled (apply.PinRefusal).
		return qlerror.New(qlerror.FailedPrecondition, "trigger %s pins an older revision of its task than the task's current one: nothing of it runs, run now and backfill included, "+
			"until it is published again with its task; apply a definitions file naming both, with the task enabled (`ql apply`)", trigger).Because(RefusalStalePin)
	case ReasonTriggerRevisionChanged:
		return qlerror.New(qlerror.Conflict, "trigger %s is being republished; try again in a moment", trigger).Because(RefusalRepublishing)
	}
	return qlerror.New(qlerror.Internal, "trigger %s fails closed (%s): its stored definitions contradict themselves; restore them or republish the trigger", trigger, reason)
}
