package storetest

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// rowFaultCases are the guarantees about schedule rows whose commit fails
// closed on the row's own stored state, which no round mends (a digest
// that no longer verifies, an execution revision missing or corrupt, a
// cursor on an occurrence that already has its Run). Each fault is made
// by a direct write to the stored rows, as a disk fault, a hand edit or a
// restored backup would leave it; every adapter fails such a row with the
// same reason and puts it aside as one this host cannot read, so however
// many of them are due, they hold no other row back.
func rowFaultCases() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"RowsWhoseStoredTriggerIsCorruptDoNotHoldBackARowDueAfterThem": testCorruptTriggerRowsDoNotStarve,
		"RowsWhoseTaskIsCorruptDoNotHoldBackARowDueAfterThem":          testCorruptTaskRowsDoNotStarve,
		"RowsWhoseExecutionIsMissingDoNotHoldBackARowDueAfterThem":     testMissingExecutionRowsDoNotStarve,
		"RowsWhoseExecutionIsCorruptDoNotHoldBackARowDueAfterThem":     testCorruptExecutionRowsDoNotStarve,
		"RowsAtAnOccurrenceThatHasItsRunDoNotHoldBackARowDueAfterThem": testReplayedOccurrenceRowsDoNotStarve,
	}
}

// corruptTrigger is a stored trigger revision that no longer hashes to
// its digest, which the commit finds.
var corruptTrigger = spoil{schedule.ReasonTriggerDigestCorrupt, eachRow(func(t *testing.T, f Fixture, d defs) {
	t.Helper()
	tamper(t, f.Tamper.RewriteTrigger(t.Context(), d.Trigger.TriggerID, "renamed", true, d.Trigger.ContentDigest))
})}

// missingExecution is a pinned task revision without its execution
// revision, which the commit of an admission finds.
var missingExecution = spoil{schedule.ReasonExecutionMissing, eachRow(func(t *testing.T, f Fixture, d defs) {
	t.Helper()
	tamper(t, f.Tamper.DeleteExecutions(t.Context(), d.Task.TaskID))
})}

// corruptTask is a pinned task revision whose stored command was
// rewritten behind its digest, which the commit re-hashes and finds.
var corruptTask = spoil{schedule.ReasonTaskDigestCorrupt, eachRow(func(t *testing.T, f Fixture, d defs) {
	t.Helper()
	tamper(t, f.Tamper.CorruptTaskCommand(t.Context(), d.Task.TaskID, d.Task.Revision))
})}

// corruptExecution is a pinned execution revision whose stored command
// was rewritten behind its digest, which the commit of an admission finds.
var corruptExecution = spoil{schedule.ReasonExecutionCorrupt, eachRow(func(t *testing.T, f Fixture, d defs) {
	t.Helper()
	tamper(t, f.Tamper.CorruptExecutions(t.Context(), d.Task.TaskID))
})}

// replayedOccurrence admits each due row's occurrence, then puts its
// cursor back on that occurrence with a version bump and forgets the
// admission (a schedule restored from a backup older than its Runs, a
// hand edit): the row decides the same admission again, and its commit
// finds the occurrence's Run by its idempotency key.
var replayedOccurrence = spoil{schedule.ReasonOccurrenceExists, func(t *testing.T, f Fixture, rows []defs) {
	t.Helper()
	tks := take(t, f, schedule.MaxPageSize)
	if len(tks) != len(rows) {
		t.Fatalf("took %d rows to admit once, want the %d due", len(tks), len(rows))
	}
	for _, tk := range tks {
		p := commitParams(t, tk)
		if res := commit(t, f, p); res.Outcome != schedule.Admitted {
			t.Fatalf("first admission of %s: %s (%s), want admitted", tk.TriggerID, res.Outcome, res.Reason)
		}
		tamper(t, f.Tamper.SetCursor(t.Context(), tk.TriggerID, p.Decision.ScheduledForMs, true))
		tamper(t, f.Tamper.SetLastScheduled(t.Context(), tk.TriggerID, nil))
	}
}}

// A page and one more of rows whose stored trigger revision no longer
// hashes to its digest, all due before a sound row, never keep the sound
// one from being admitted: each commit fails closed on the row's own
// stored state (trigger_digest_corrupt), which no round mends, and the row
// is put aside as one this host cannot read is; each keeps its cursor and
// gets no Run.
func testCorruptTriggerRowsDoNotStarve(t *testing.T, f Fixture) {
	requireAdmittedBehindUnreadable(t, f, corruptTrigger, unreadablePage+1)
}

// A page and one more of rows whose task lost its execution revision, all
// due before a sound row, never keep the sound one from being admitted:
// each admission fails closed at the commit (execution_missing), and the
// row is put aside; each keeps its cursor and gets no Run.
func testMissingExecutionRowsDoNotStarve(t *testing.T, f Fixture) {
	requireAdmittedBehindUnreadable(t, f, missingExecution, unreadablePage+1)
}

// A page and one more of rows whose pinned task revision was rewritten
// behind its digest, all due before a sound row, never keep the sound one
// from being admitted: each commit re-hashes the task and fails closed
// (task_digest_corrupt), and the row is put aside; each keeps its cursor
// and gets no Run.
func testCorruptTaskRowsDoNotStarve(t *testing.T, f Fixture) {
	requireAdmittedBehindUnreadable(t, f, corruptTask, unreadablePage+1)
}

// A page and one more of rows whose pinned execution revision was
// rewritten behind its digest, all due before a sound row, never keep the
// sound one from being admitted: each admission fails closed at the commit
// (execution_corrupt), and the row is put aside; each keeps its cursor and
// gets no Run.
func testCorruptExecutionRowsDoNotStarve(t *testing.T, f Fixture) {
	requireAdmittedBehindUnreadable(t, f, corruptExecution, unreadablePage+1)
}

// A page and one more of rows whose cursor was put back on an occurrence
// that already has its Run, all due before a sound row, never keep the
// sound one from being admitted: each admission fails closed on the
// occurrence's idempotency key (occurrence_exists), and the row is put
// aside; each keeps its cursor and its one Run, and gets no second.
func testReplayedOccurrenceRowsDoNotStarve(t *testing.T, f Fixture) {
	requireAdmittedBehindUnreadable(t, f, replayedOccurrence, unreadablePage+1)
}
