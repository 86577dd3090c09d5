package schedule

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/run"
)

// RunNowRequest asks for one manual Run of a trigger, admitted at once.
// RequestID makes the request idempotent: the same trigger and RequestID
// always name the same Run (idempotency key ql3:manual:v1:…), so a retried
// command never makes two. Force admits it even when the trigger's overlap
// policy would skip it. Actor is who asked, for the audit trail.
type RunNowRequest struct {
	TriggerID string
	RequestID string
	Force     bool
	Actor     string
}

// RunNowResult says what a RunNowRequest did. RunID is set when a Run
// exists for the request (Created false: an earlier identical request made
// it). Skipped is set (with its reason) when the overlap policy refused it,
// and Unfinished then names the earlier Run it refused it beside, for the
// user to look at or cancel (OverlapRefusedBeside): the oldest unfinished
// one, or under queue_one the one already waiting (Waiting). Finished
// counts the Runs the request finished: the trigger's unfinished
// Runs that its overlap policy cancel_previous cancelled at once
// (run.Finishes); Cancelled names every unfinished Run that policy
// cancelled, oldest first — those finished at once and the running ones
// asked to stop, which the new Run waits for — so the caller can say that
// it stopped them.
type RunNowResult struct {
	RunID      string
	Created    bool
	Skipped    PassReason
	Unfinished string
	Waiting    bool
	Finished   run.FinishCounts
	Cancelled  []string
}

// BackfillRequest asks for the occurrences of a trigger scheduled in
// [FromMs, ToMs] that have no Run yet, up to Max of them, each with the
// idempotency key its cron admission would have had. A window holding more
// than Max is cut there, or refused whole when RefuseOverMax. DryRun does
// it all in a transaction that is rolled back: the result counts what the
// backfill would do (its RunIDs empty) and nothing is created. Max 0 is
// DefaultBackfillMax. Names are how the caller's surface spells the
// window's bounds and the cap, for its refusals to name them.
type BackfillRequest struct {
	TriggerID     string
	FromMs        int64
	ToMs          int64
	Max           int
	RefuseOverMax bool
	DryRun        bool
	Actor         string
	Names         BackfillNames
}

// BackfillNames are the words a surface's user gave a backfill's inputs
// with, which its refusals then name: the CLI's flags (--from), the API's
// JSON fields (fromMs), a form's. A refusal says what it refuses in plain
// words ("the window's end") and adds the name in parentheses, so a name
// left empty leaves the plain words alone, and one surface's user is
// never told the other's.
type BackfillNames struct{ From, To, Max string }

// BackfillResult reports a backfill: how many occurrences the window holds
// (up to the cap), the scheduled times of the first and last of them, how
// many got a new Run, how many already had one, and whether the cap cut
// the window short (Truncated: LastMs is then where). A window that gave
// no occurrence says why in NoneTaken, when its bounds or the clock kept
// the cron's occurrences from it. RunIDs are the Runs admitted now;
// ExistingRunIDs the Runs the Existing occurrences already had, in
// occurrence order, so a backfill asked again after its answer was lost
// learns the Runs the first one made (it admits nothing the second time).
type BackfillResult struct {
	Occurrences    int
	Admitted       int
	Existing       int
	Truncated      bool
	FirstMs        int64
	LastMs         int64
	RunIDs         []string
	ExistingRunIDs []string
	NoneTaken      NoneTaken
}

// RerunRequest asks for a new Run that repeats a finished one: the same
// trigger and the same pinned revisions (task, trigger and execution) as
// the original, so it runs exactly the command that ran, even when the
// definitions have been republished since (run now runs the current
// ones). RequestID makes it idempotent as in RunNowRequest (idempotency
// key ql3:rerun:v1:…); Actor is who asked, for the audit trail.
type RerunRequest struct {
	RunID     string
	RequestID string
	Actor     string
}

// RerunResult says what a RerunRequest did, as RunNowResult does: the
// new Run (Created false: an earlier identical request made it), or the
// overlap policy's refusal with the earlier Run it refused it beside, and
// the Runs it finished and cancelled as RunNowResult counts and names
// them.
type RerunResult struct {
	RunID      string
	Created    bool
	Skipped    PassReason
	Unfinished string
	Waiting    bool
	Finished   run.FinishCounts
	Cancelled  []string
}

// Rerunner re-runs finished Runs. An unknown Run is NotFound; one that has
// not finished is refused with a *NotFinishedError.
type Rerunner interface {
	RunRerun(ctx context.Context, r RerunRequest) (RerunResult, error)
}

// Manual admits Runs a person asked for rather than the clock: run now,
// backfill and re-run. An unknown trigger is NotFound.
type Manual interface {
	TriggerRunNow(ctx context.Context, r RunNowRequest) (RunNowResult, error)
	TriggerBackfill(ctx context.Context, r BackfillRequest) (BackfillResult, error)
	Rerunner
}
