package run

import (
	"context"
	"slices"
	"strings"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Page limits for listings.
const (
	DefaultPageSize = 50
	MaxPageSize     = 500
)

// ListParams filters and pages a run listing. Runs are listed newest first
// (by id, which is a UUIDv7 and so time-ordered); After is the last id of
// the previous page.
type ListParams struct {
	ProjectID string
	TriggerID string
	State     State
	Limit     int
	After     string
	// FromMs and ToMs keep the Runs admitted in [FromMs, ToMs) (epoch
	// milliseconds, 0 for no bound), by the time in their ids: the order
	// of the listing, so a window is one range of its index and pages by
	// After as any listing does.
	FromMs int64
	ToMs   int64
	// Worker keeps the Runs any attempt of which the cluster worker of
	// this name held, whether or not it holds the latest; "" for no
	// filter. A profile without workers refuses it.
	Worker string
	// InProjects keeps the Runs of the projects of these names only (a
	// project-bound token's or console user's projects); nil for every
	// project. The store filters before it pages, so a page holds up to
	// Limit of these projects' Runs and After continues their order.
	InProjects []string
}

// The reasons of a run listing's refusals: the console says each in the
// page's language.
const (
	// RefusalListNotAnID is every listing's filter or cursor that takes
	// an id and was given something else (a run listing's project,
	// trigger or after; the API's trigger and notification listings'
	// too): one mistake, one reason, its params the parameter and the
	// value given.
	RefusalListNotAnID      qlerror.Reason = "query_not_an_id"
	RefusalListState        qlerror.Reason = "run_list_state"
	RefusalListOutOfRange   qlerror.Reason = "run_list_out_of_range"
	RefusalListReversed     qlerror.Reason = "run_list_reversed"
	RefusalListNotATime     qlerror.Reason = "run_list_not_a_time"
	RefusalListNoWorkers    qlerror.Reason = "run_list_no_workers"
	RefusalListNoSuchWorker qlerror.Reason = "run_list_no_such_worker"
)

// CheckState refuses a state no Run of this release can be in, naming
// those one can (Reachable): a state the schema keeps for approvals but
// no path enters is refused too, saying so, so that the API, the command
// line and the console offer and accept the same states.
func (p ListParams) CheckState() error {
	if p.State == "" || slices.Contains(Reachable, p.State) {
		return nil
	}
	names := make([]string, len(Reachable))
	for i, s := range Reachable {
		names[i] = string(s)
	}
	if slices.Contains(States, p.State) {
		return qlerror.New(qlerror.Invalid, "run listing: no Run of this release is ever %s (the state is kept for approvals, which nothing enters yet); use one of %s", p.State, strings.Join(names, ", ")).
			Because(RefusalListState, "state", p.State)
	}
	return qlerror.New(qlerror.Invalid, "run listing: state %q is not a run state; use one of %s", p.State, strings.Join(names, ", ")).
		Because(RefusalListState, "state", p.State)
}

// CheckIDs refuses a project, trigger or cursor that is not an id, saying
// which command prints the one wanted.
func (p ListParams) CheckIDs() error {
	for _, f := range []struct{ field, label, value, hint string }{
		{"project", "project", p.ProjectID, "a project id, as `ql triggers list -o json` prints it (the CLI and the console take its name too)"},
		{"trigger", "trigger", p.TriggerID, "a trigger id, as `ql triggers list -o json` prints it (the CLI and the console take its name too)"},
		{"after", "page cursor (after)", p.After, "the id of the last run of the previous page, as `ql runs list` prints it"},
	} {
		if f.value == "" {
			continue
		}
		if err := ids.Validate(f.field, f.value); err != nil {
			return qlerror.Wrap(qlerror.Invalid, err, "run listing: give the %s as %s", f.label, f.hint).Because(RefusalListNotAnID, "parameter", f.field, "value", qlerror.Echoed(f.value))
		}
	}
	return nil
}

// CheckWindow refuses a time window that is reversed or outside the times
// an id can hold.
func (p ListParams) CheckWindow() error {
	const maxMs = 1<<48 - 1
	switch {
	case p.FromMs < 0 || p.ToMs < 0 || p.FromMs > maxMs || p.ToMs > maxMs:
		return qlerror.New(qlerror.Invalid, "run listing: the time window must lie between 1970 and the year 10889").Because(RefusalListOutOfRange)
	case p.ToMs != 0 && p.FromMs >= p.ToMs:
		return qlerror.New(qlerror.Invalid, "run listing: the window's start is not before its end; give from before to").Because(RefusalListReversed)
	}
	return nil
}

// NoWorkersToFilterBy is how a profile without workers (standalone, edge:
// the server runs each command itself) refuses a listing by worker.
func NoWorkersToFilterBy(worker string) error {
	return qlerror.New(qlerror.Invalid, "run listing: this server has no workers (it runs each command itself), so no Run ran on worker %q; list without the worker filter", worker).
		Because(RefusalListNoWorkers, "worker", worker)
}

// NoSuchWorker refuses a listing by a worker no credential was ever made
// for.
func NoSuchWorker(worker string) error {
	return qlerror.New(qlerror.NotFound, "run listing: there is no worker named %q; `ql workers list` lists them", worker).
		Because(RefusalListNoSuchWorker, "worker", worker)
}

// Reader is the read contract the HTTP API and the CLI use.
type Reader interface {
	// RunList returns one page and the cursor of the next ("" when done).
	RunList(ctx context.Context, p ListParams) (runs []Run, next string, err error)
	// RunGet returns a run with its attempts and events, or NotFound.
	RunGet(ctx context.Context, id string) (Detail, error)
}
