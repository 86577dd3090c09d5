package schedule

import (
	"context"
	"unicode"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// LedgerKeep is how many ledger entries each trigger keeps in full. Older
// ones are folded into one count per reason (LedgerEntry.Compacted), so
// the ledger of a trigger is bounded whatever its frequency. A thousand
// entries is far more than `ql triggers show` prints, covers at least a
// thousand decisions that passed something over (every decision writes at
// most a handful of entries, none when it is on time), and costs a few
// hundred kilobytes per trigger at most; compacting costs one bounded
// batch every LedgerKeep entries, never a scan.
const LedgerKeep = 1000

// LedgerEntry is one row of the occurrence ledger: occurrences of one
// trigger passed over without a Run, for one reason.
type LedgerEntry struct {
	Passed
	TriggerID       string
	TriggerRevision int64
	// RecordedAtMs is the store's clock (database time in the cluster)
	// when the decision that passed them over committed.
	RecordedAtMs int64
	// Compacted marks the per-reason total of entries older than the
	// LedgerKeep newest; its FirstMs/LastMs span all of them, and its
	// TriggerRevision is the newest one among them.
	Compacted bool
	// Backfilled counts the occurrences of this entry's stretch a backfill
	// gave a Run after it was recorded (Runs with the clock's key there:
	// the clock passed them over). The ledger stays as recorded; readers
	// say it beside the entry. 0 for a compacted total.
	Backfilled int64
}

// PauseRequest pauses (Pause) or resumes a trigger's schedule. Actor is
// who asked (the OS user, or the database role), recorded in the audit
// trail with Note.
type PauseRequest struct {
	TriggerID string
	Pause     bool
	Note      string
	Actor     string
	// SinceMs, when set, is when a pause handed over from another
	// database began there (`apply --adopt-state`): the pause and its
	// audit record keep that start instead of now (PauseStart).
	SinceMs int64
}

// PauseStart is when a pause asked for at nowMs starts: sinceMs, the
// start of a pause handed over from another database, when it is set and
// before nowMs (a pause cannot start later than it is written), else
// nowMs.
func PauseStart(sinceMs, nowMs int64) int64 {
	if sinceMs > 0 && sinceMs < nowMs {
		return sinceMs
	}
	return nowMs
}

// MaxPauseNote is the longest note a pause keeps, in characters: the
// audit trail's column holds no more.
const MaxPauseNote = 1000

// The reasons of a pause note's refusals: too long, or not one line of
// plain text.
const (
	RefusalPauseNoteTooLong qlerror.Reason = "pause_note_too_long"
	RefusalPauseNoteNotText qlerror.Reason = "pause_note_not_text"
)

// Validate refuses a request the stores could not record: a malformed
// trigger id, or a note longer than MaxPauseNote. A note is one line of
// plain text: a control character (a newline, an escape sequence) or a
// bidirectional override would let it forge lines or reorder what
// `ql triggers show`, the console and the audit trail print around it.
func (r PauseRequest) Validate() error {
	if err := ids.Validate("trigger id", r.TriggerID); err != nil {
		return NotATriggerID(r.TriggerID, err)
	}
	return r.validateNote()
}

// validateNote refuses a note the audit trail could not hold or that is
// not one line of plain text.
func (r PauseRequest) validateNote() error {
	if n := utf8.RuneCountInString(r.Note); n > MaxPauseNote {
		return qlerror.New(qlerror.Invalid, "the note has %d characters; a note keeps at most %d, shorten it", n, MaxPauseNote).Because(RefusalPauseNoteTooLong)
	}
	if !utf8.ValidString(r.Note) {
		return qlerror.New(qlerror.Invalid, "the note is not valid UTF-8 text").Because(RefusalPauseNoteNotText)
	}
	for i, c := range []rune(r.Note) {
		if unicode.IsControl(c) || validate.IsBidiControl(c) {
			return qlerror.New(qlerror.Invalid, "the note holds %U at character %d; a note is one line of plain text, without control or text-direction characters", c, i+1).Because(RefusalPauseNoteNotText)
		}
	}
	return nil
}

// PauseResult is a trigger's pause state after a PauseRequest. Changed is
// false when it already was in the state asked for (nothing is written).
// Pausing a trigger its project's pause holds is a change: the pause
// becomes the trigger's own, with the request's note, and the project's
// resume leaves it paused.
type PauseResult struct {
	Changed bool
	Paused  bool
	// WithProject: the pause in force is its project's (ProjectPauser).
	WithProject bool
	Note        string
	// AtMs is when it was paused (for a paused trigger) or resumed, in the
	// store's clock.
	AtMs int64
	// Queued is, at a pause, how many of the trigger's Runs are queued,
	// up to run.QueuedCountCap: a pause admits no new Run but leaves
	// those to start. The reader that answers the pause fills it.
	Queued int
}

// Pauser pauses and resumes triggers: schedule state, not a new trigger
// revision. A paused row is never taken; each change bumps the row's
// state version (so no ticket taken before it can commit) and writes an
// audit record in the same transaction. An unknown trigger is NotFound.
type Pauser interface {
	TriggerPause(ctx context.Context, r PauseRequest) (PauseResult, error)
}

// TriggerDetail is what `ql triggers show` prints beside the trigger's
// runs: its status, pause state, the store's clock and its newest ledger
// entries.
type TriggerDetail struct {
	TriggerStatus
	PauseNote  string
	PausedAtMs *int64
	// NowMs is the store's clock at the read, for the next fire times.
	NowMs int64
	// Ledger is newest first.
	Ledger []LedgerEntry
	// Audit is the trigger's newest AuditShown+1 audit records, newest
	// first: the one past AuditShown only says that older ones exist.
	Audit []AuditRecord
	// AuditUnreadable says the store may not read the audit trail (a
	// cluster whose runtime role was not given SELECT on it, roles not
	// re-applied after an upgrade): the rest of the detail is whole, and
	// Audit is empty rather than taken for a trigger nobody paused.
	AuditUnreadable bool
}

// AuditShown is how many audit records a trigger detail shows: the
// newest ones, enough to tell who paused it and why; the whole trail
// stays in the table.
const AuditShown = 10

// AuditRecord is one record of a trigger's pause and resume audit trail
// (and of the enable or disable that publishes a revision): what was
// done, by whom (the operating-system user, or the API or console actor
// with its address), with which note, at the store's clock.
type AuditRecord struct {
	Action string
	Actor  string
	Note   string
	AtMs   int64
}

// DetailReader reads one trigger's detail with up to ledgerLimit ledger
// entries; an unknown trigger is NotFound.
type DetailReader interface {
	TriggerDetail(ctx context.Context, triggerID string, ledgerLimit int) (TriggerDetail, error)
}
