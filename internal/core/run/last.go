package run

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Last is the newest Run of a trigger (the one admitted last), as the
// triggers lists (the console's, the API's and `ql triggers list`) show it
// beside each trigger.
type Last struct {
	TriggerID      string
	RunID          string
	State          State
	ScheduledForMs int64
	FinishedAtMs   *int64
	// CreatedAtMs is when the Run was admitted; RerunOf the Run it
	// repeats, "" for one that repeats none; Origin what admitted it.
	CreatedAtMs int64
	RerunOf     string
	Origin      Origin
	// Queued is how many of the trigger's Runs are queued (admitted, none
	// started), counted up to BacklogCountCap.
	Queued int
	// CancelledUnstarted is how many of the trigger's newest
	// StarvingWindow Runs were cancelled before any of their attempts
	// started.
	CancelledUnstarted int
	// SlotHolders are, for a trigger with Runs queued on a single-node
	// server, the triggers whose Runs hold its slots, most first (at most
	// MaxSlotHolders), and MoreSlotHolders how many other triggers hold
	// one; so a backlog warning can name what keeps its Runs queued.
	// The cluster's reads leave them empty.
	SlotHolders     []SlotHolder
	MoreSlotHolders int
	// OtherProjectsRuns is, read for an API token bound to projects, how
	// many Runs of other projects' triggers among SlotHolders hold the
	// slots: the token may know they do, not which.
	OtherProjectsRuns int
	// Project is the trigger's project and MaxRunning its cap on its Runs
	// holding a slot at once (0: none); ProjectRunning, under a cap, how
	// many do: at the cap, a backlog waits for the project's share, not
	// for slots (project_busy).
	Project        string
	MaxRunning     int
	ProjectRunning int
	// Workers: the trigger's Runs are run by workers (the cluster), whose
	// --concurrency and number bound them, not a server's --concurrency.
	Workers bool
}

// ListedAtMs is the time the triggers lists show beside the Run: the
// occurrence it is for (ListedAt).
func (l Last) ListedAtMs() int64 {
	return ListedAt(l.ScheduledForMs, l.CreatedAtMs, ListedMark(l.RerunOf, l.Origin))
}

// Mark is what the triggers lists mark the Run with (ListedMark).
func (l Last) Mark() Origin { return ListedMark(l.RerunOf, l.Origin) }

// ListedMark is the origin the triggers lists mark a trigger's newest Run
// with, and show it at its admission for: OriginRerun for a rerun (one
// that repeats rerunOf), OriginBackfill for a backfill's Run; both are for
// an older occurrence, made however long after it. "" for a Run the clock
// or a run now admitted.
func ListedMark(rerunOf string, origin Origin) Origin {
	switch {
	case rerunOf != "":
		return OriginRerun
	case origin == OriginBackfill:
		return OriginBackfill
	}
	return ""
}

// ListedAt is the time a trigger's newest Run is shown at: the occurrence
// it is for, but for a Run marked a rerun or a backfill (ListedMark),
// which is for an older occurrence however long after, when it was
// admitted, so that a rerun of last night's Run, or a backfill of last
// week's occurrences, does not read as last night's or last week's. (A
// run now is for the moment of its request, its admission.)
func ListedAt(scheduledForMs, createdAtMs int64, mark Origin) int64 {
	if mark != "" {
		return createdAtMs
	}
	return scheduledForMs
}

// AtProjectCap reports whether the trigger's project runs as many of its
// Runs as its maxRunning allows, so that its queued Runs wait for the
// project's share whatever slots are free.
func (l Last) AtProjectCap() bool {
	return l.MaxRunning > 0 && l.ProjectRunning >= l.MaxRunning
}

// The reads behind the triggers' overlap warnings (view.Warning) are
// bounded so that the triggers list costs the same whatever the Runs
// kept: the queued Runs are counted up to BacklogCountCap (a backlog that
// large says all it needs to), and only the newest StarvingWindow Runs are
// looked at for cancels before a start — enough for a streak of
// cancel_previous cancels to show, few enough to read in one probe.
const (
	BacklogCountCap = 100
	StarvingWindow  = 5
)

// MaxLastTriggers bounds one LastReader call: a page of the triggers list
// is at most 500 triggers.
const MaxLastTriggers = 1000

// LastReader reads the newest Run of each of a page of triggers.
type LastReader interface {
	// RunsLast returns the newest Run of each trigger of triggerIDs that
	// has one, by trigger id; a trigger without a Run is absent.
	RunsLast(ctx context.Context, triggerIDs []string) (map[string]Last, error)
}

// CheckLastTriggers refuses a RunsLast request the stores do not take: too
// many triggers, or one that is not an id.
func CheckLastTriggers(triggerIDs []string) error {
	if len(triggerIDs) > MaxLastTriggers {
		return qlerror.New(qlerror.Invalid, "the newest Runs of %d triggers were asked for at once; ask for at most %d", len(triggerIDs), MaxLastTriggers)
	}
	for _, id := range triggerIDs {
		if err := ids.Validate("trigger id", id); err != nil {
			return qlerror.Wrap(qlerror.Invalid, err, "give trigger ids as `ql triggers list` prints them")
		}
	}
	return nil
}
