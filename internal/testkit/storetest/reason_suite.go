package storetest

import (
	"context"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// reasonCases reach, each from a fresh due ticket, one reason a commit is
// refused with: the world is changed behind the ticket (through the
// contracts where a user can do it, through Tamper where only corruption
// can), and the commit must end with exactly that reason, its outcome, and
// nothing written. Every adapter reaches each of them the same way.
func reasonCases() map[string]func(*testing.T, Fixture) {
	cases := map[schedule.Reason]func(t *testing.T, f Fixture, d defs, p *schedule.CommitParams) context.Context{
		schedule.ReasonProjectInactive: func(t *testing.T, f Fixture, d defs, _ *schedule.CommitParams) context.Context {
			archived := d.Project
			archived.Status = project.Archived
			if _, err := f.Catalog.ProjectSave(t.Context(), archived); err != nil {
				t.Fatalf("archive: %v", err)
			}
			return t.Context()
		},
		schedule.ReasonTaskRevisionChanged: func(t *testing.T, f Fixture, d defs, _ *schedule.CommitParams) context.Context {
			spec := commandSpec("job", true)
			spec.Command.Args = []string{"changed"}
			publishTask(t, f, d.Project.ID, d.Task.TaskID, 1, spec)
			return t.Context()
		},
		schedule.ReasonStateVersionChanged: func(t *testing.T, f Fixture, d defs, _ *schedule.CommitParams) context.Context {
			makeDue(t, f, d.Trigger.TriggerID, 2_000)
			return t.Context()
		},
		schedule.ReasonInvalidParams: func(t *testing.T, _ Fixture, _ defs, p *schedule.CommitParams) context.Context {
			// A ticket fenced the other profile's way.
			if p.Ticket.Lease != nil {
				p.Ticket.Lease = nil
			} else {
				p.Ticket.Lease = &schedule.Lease{Owner: "replica-a", Token: ids.New(), ClaimVersion: 1,
					AcquiredAtMs: p.Ticket.ObservedAtMs, ExpiresAtMs: p.Ticket.ObservedAtMs + 30_000}
			}
			return t.Context()
		},
		schedule.ReasonTriggerSnapshotMismatch: func(t *testing.T, _ Fixture, _ defs, p *schedule.CommitParams) context.Context {
			p.Ticket.TriggerContentDigest = otherDigest
			return t.Context()
		},
		schedule.ReasonTaskSnapshotMismatch: func(t *testing.T, _ Fixture, _ defs, p *schedule.CommitParams) context.Context {
			p.Ticket.TaskContentDigest = otherDigest
			return t.Context()
		},
		schedule.ReasonTriggerDigestCorrupt: func(t *testing.T, f Fixture, d defs, _ *schedule.CommitParams) context.Context {
			// The name is hashed but is no input of the decision.
			tamper(t, f.Tamper.RewriteTrigger(t.Context(), d.Trigger.TriggerID, "renamed", true, d.Trigger.ContentDigest))
			return t.Context()
		},
		schedule.ReasonTaskDigestCorrupt: func(t *testing.T, f Fixture, d defs, _ *schedule.CommitParams) context.Context {
			tamper(t, f.Tamper.SetTaskDigest(t.Context(), d.Task.TaskID, d.Task.Revision, otherDigest))
			return t.Context()
		},
		schedule.ReasonTriggerNotSchedulable: func(t *testing.T, f Fixture, d defs, p *schedule.CommitParams) context.Context {
			// A disabled revision whose digest still verifies and matches
			// the ticket: only a take that ignored the flag yields this.
			r := d.Trigger
			r.Spec.Enabled = false
			dg := trigger.ContentDigest(r.ProjectID, r.TriggerID, r.TaskID, r.TaskRevision, r.TaskContentDigest, r.Spec)
			tamper(t, f.Tamper.RewriteTrigger(t.Context(), r.TriggerID, r.Spec.Name, false, dg))
			p.Ticket.TriggerContentDigest = dg
			return t.Context()
		},
		schedule.ReasonCursorDrift: func(t *testing.T, f Fixture, d defs, p *schedule.CommitParams) context.Context {
			tamper(t, f.Tamper.SetCursor(t.Context(), d.Trigger.TriggerID, *p.Ticket.NextFireAtMs-60_000, false))
			return t.Context()
		},
		schedule.ReasonDecisionMismatch: func(t *testing.T, _ Fixture, _ defs, p *schedule.CommitParams) context.Context {
			p.Decision.NextFireAtMs += 60_000
			return t.Context()
		},
		schedule.ReasonExecutionMissing: func(t *testing.T, f Fixture, d defs, _ *schedule.CommitParams) context.Context {
			tamper(t, f.Tamper.DeleteExecutions(t.Context(), d.Task.TaskID))
			return t.Context()
		},
		schedule.ReasonExecutionCorrupt: func(t *testing.T, f Fixture, d defs, _ *schedule.CommitParams) context.Context {
			tamper(t, f.Tamper.CorruptExecutions(t.Context(), d.Task.TaskID))
			return t.Context()
		},
		schedule.ReasonCancelled: func(t *testing.T, _ Fixture, _ defs, _ *schedule.CommitParams) context.Context {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			return ctx
		},
		schedule.ReasonWriteFailed: func(t *testing.T, f Fixture, _ defs, _ *schedule.CommitParams) context.Context {
			tamper(t, f.Tamper.FailQueuedEvents(t.Context()))
			return t.Context()
		},
	}
	tests := make(map[string]func(*testing.T, Fixture), len(cases)+1)
	add := func(name string, reason schedule.Reason, change func(*testing.T, Fixture, defs, *schedule.CommitParams) context.Context) {
		tests["CommitRefused/"+name] = func(t *testing.T, f Fixture) {
			d, tk := dueTicket(t, f)
			p := commitParams(t, tk)
			ctx := change(t, f, d, &p)
			requireRefused(t, f, ctx, p, reason)
		}
	}
	for reason, change := range cases {
		add(string(reason), reason, change)
	}
	// The task's content re-hashed, not only its stored digest compared.
	add("task_digest_corrupt_content", schedule.ReasonTaskDigestCorrupt, func(t *testing.T, f Fixture, d defs, _ *schedule.CommitParams) context.Context {
		tamper(t, f.Tamper.CorruptTaskCommand(t.Context(), d.Task.TaskID, d.Task.Revision))
		return t.Context()
	})
	return tests
}

// otherDigest is a well-formed digest of nothing stored.
var otherDigest = "sha256:" + strings.Repeat("0", 64)

func tamper(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("tamper: %v", err)
	}
}

// dueTicket publishes one trigger, initialises it, makes it due and takes
// its ticket, which decides to admit.
func dueTicket(t *testing.T, f Fixture) (defs, schedule.Ticket) {
	t.Helper()
	d := initialisedDefs(t, f, "alpha")
	makeDue(t, f, d.Trigger.TriggerID, 1_000)
	return d, takeOne(t, f)
}

// requireRefused commits p on ctx and requires reason with its outcome,
// and that nothing was written: the same Runs, Attempts and events, and
// the schedule row as it was just before.
func requireRefused(t *testing.T, f Fixture, ctx context.Context, p schedule.CommitParams, reason schedule.Reason) {
	t.Helper()
	id := p.Ticket.TriggerID
	before, beforeCounts := row(t, f, id), counts(t, f, id)
	res, err := commitVia(ctx, f, p)
	if res.Outcome != reason.Outcome() || res.Reason != reason || res.RunID != "" {
		t.Fatalf("commit: %s (%s) run %q, %v; want %s (%s)", res.Outcome, res.Reason, res.RunID, err, reason.Outcome(), reason)
	}
	if c := counts(t, f, id); c != beforeCounts {
		t.Fatalf("a commit refused with %s wrote: %+v -> %+v", reason, beforeCounts, c)
	}
	if after := row(t, f, id); !sameRow(after, before) {
		t.Fatalf("a commit refused with %s changed the row: %+v -> %+v", reason, before, after)
	}
}

// testScheduleMissing: schedule rows are never deleted, so a ticket whose
// row is gone fails closed (and there is no row left to compare).
func testScheduleMissing(t *testing.T, f Fixture) {
	d, tk := dueTicket(t, f)
	tamper(t, f.Tamper.DeleteSchedule(t.Context(), d.Trigger.TriggerID))
	res, err := commitVia(t.Context(), f, commitParams(t, tk))
	if want := schedule.ReasonScheduleMissing; res.Outcome != want.Outcome() || res.Reason != want {
		t.Fatalf("commit of a ticket whose row is gone: %s (%s), %v; want %s (%s)", res.Outcome, res.Reason, err, want.Outcome(), want)
	}
	if c := counts(t, f, d.Trigger.TriggerID); c != (Counts{}) {
		t.Fatalf("a commit without a schedule row wrote %+v", c)
	}
}

// testReplayedOccurrence: a schedule row put back on an occurrence that
// already has a Run (a restored backup, a hand edit) holds its fence, so
// only the idempotency key stops the second admission — and that is a
// failure to look at, not a race: a concurrent committer of the same
// occurrence would have moved the fence first.
func testReplayedOccurrence(t *testing.T, f Fixture) {
	d, tk := dueTicket(t, f)
	first := commitParams(t, tk)
	if res := commit(t, f, first); res.Outcome != schedule.Admitted {
		t.Fatalf("first admission: %s (%s)", res.Outcome, res.Reason)
	}
	// The row as a backup older than its Run holds it: its cursor on the
	// occurrence, and no admission after it (one after it would be a
	// cursor moved back after the clock went back: clockback_suite.go).
	tamper(t, f.Tamper.SetCursor(t.Context(), d.Trigger.TriggerID, first.Decision.ScheduledForMs, true))
	tamper(t, f.Tamper.SetLastScheduled(t.Context(), d.Trigger.TriggerID, nil))
	replay := commitParams(t, takeOne(t, f))
	if replay.Decision.Action != schedule.Admit || replay.Decision.ScheduledForMs != first.Decision.ScheduledForMs {
		t.Fatalf("replay decided %+v, want the admission of %d again", replay.Decision, first.Decision.ScheduledForMs)
	}
	requireRefused(t, f, t.Context(), replay, schedule.ReasonOccurrenceExists)
	if c := counts(t, f, d.Trigger.TriggerID); c != (Counts{Runs: 1, Attempts: 1, Events: 2}) {
		t.Fatalf("one occurrence has %+v, want exactly one admission", c)
	}
}
