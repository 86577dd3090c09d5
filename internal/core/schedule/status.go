package schedule

import (
	"context"
	"strings"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// TriggerStatus is a trigger's current revision with its schedule state.
type TriggerStatus struct {
	ProjectID   string
	ProjectName string
	TriggerID   string
	Name        string
	// Title, TaskTitle and ProjectTitle are the display titles of the
	// trigger, its task and its project ("" none), shown beside the names.
	Title        string
	TaskTitle    string
	ProjectTitle string
	Revision     int64
	Enabled      bool
	// Paused: the schedule is paused (no occurrence runs until resumed).
	Paused bool
	// PausedWithProject: the pause in force is its project's
	// (ProjectPauser), so resuming the project resumes it; false for a
	// pause of its own, which a project's resume leaves in force.
	PausedWithProject bool
	Cron              trigger.Cron
	TaskID            string
	TaskName          string
	TaskRevision      int64
	// NextFireAtMs is the cursor's nominal fire time; nil while the row
	// is uninitialised and once Ended.
	NextFireAtMs *int64
	// NextDueAtMs is the cursor's jittered due time; nil as NextFireAtMs.
	NextDueAtMs *int64
	// Ended: the trigger's endAt lies before its next occurrence; it will
	// not fire again unless republished.
	Ended bool
	// Archived: the trigger's project is archived; none of its
	// occurrences is taken until the project is made active again, and it
	// has no next fire.
	Archived          bool
	LastScheduledAtMs *int64
	StateVersion      int64
	ClaimOwner        *string // cluster only
	ClaimExpiresAtMs  *int64  // cluster only
	// FoundIn is where a listing's search found the trigger; "" when the
	// listing has no search.
	FoundIn SearchField
}

// SearchField is the part of a trigger a listing's search found its text
// in: the names and titles the list shows, else the command its task
// runs, which the list does not show.
type SearchField string

// The fields a search reads, in the order it reads them.
const (
	FoundInName    SearchField = "name"
	FoundInScript  SearchField = "script"
	FoundInCommand SearchField = "command"
)

// FoundInOf is where a search found a trigger, from what the store read:
// whether the names and titles hold the search, and the command's mode
// (its shell script, or its argv program and arguments, when not).
func FoundInOf(searched, inNames bool, mode string) SearchField {
	switch {
	case !searched:
		return ""
	case inNames:
		return FoundInName
	case task.Mode(mode) == task.ModeShell:
		return FoundInScript
	}
	return FoundInCommand
}

// SetCursor fills the next fire and due times from a stored schedule row's
// cursor and due time. The row of an ended trigger keeps a cursor past its
// endAt (so no round takes it again) with no due time; that cursor is no
// time anything fires at, so it is reported as Ended with no next fire.
func (t *TriggerStatus) SetCursor(cursor, due *int64) {
	if cursor != nil && due == nil {
		t.NextFireAtMs, t.NextDueAtMs, t.Ended = nil, nil, true
		return
	}
	t.NextFireAtMs, t.NextDueAtMs, t.Ended = cursor, due, false
}

// SetArchived marks the trigger of an archived project, after SetCursor:
// its row is not taken while the project is archived, and the
// reactivation moves the cursor past what fell due meanwhile without
// running it, so the stored cursor is no time anything fires at.
func (t *TriggerStatus) SetArchived(archived bool) {
	t.Archived = archived
	if archived {
		t.NextFireAtMs, t.NextDueAtMs = nil, nil
	}
}

// TriggerListParams pages a trigger listing ordered by trigger id (UUIDv7,
// so creation order); After is the last trigger id of the previous page.
// Search, when set, keeps only the triggers whose project/trigger name,
// task name, or trigger, task or project title holds it, or the command
// of the task revision the trigger runs: its shell script, or its argv
// program and arguments joined by spaces (the case of A–Z ignored, beyond
// them as the store's LIKE folds case; the names searched are joined as
// "project/trigger task titles", so "proj/trig" finds the trigger as the
// list names it). A task's env and working directory are not searched.
// The store filters before it pages: a page holds up to Limit matches and
// After continues the filtered order; FoundIn says which part matched.
type TriggerListParams struct {
	ProjectID string
	Limit     int
	After     string
	Search    string
	// TitlesOnly matches Search in the trigger's display title alone, not
	// in the other names and titles or the command: the console's Runs
	// filter, which takes a title where no trigger has the text as its
	// name. The API has no such parameter.
	TitlesOnly bool
	// InProjects keeps the triggers of the projects of these names only
	// (a project-bound token's or console user's projects), filtered
	// before the page is cut as Search is; nil for every project.
	InProjects []string
}

// MaxSearch bounds a trigger listing's search text, in bytes.
const MaxSearch = 200

// SearchPattern is p.Search as a LIKE pattern with the escape character
// '\': the user's %, _ and \ match themselves, never any text; "" when
// there is no search. A search longer than MaxSearch is refused.
func (p TriggerListParams) SearchPattern() (string, error) {
	if p.Search == "" {
		return "", nil
	}
	if len(p.Search) > MaxSearch {
		return "", qlerror.New(qlerror.Invalid, "trigger search is %d bytes, over the %d allowed: search for a shorter part of the name, title or command", len(p.Search), MaxSearch).
			Because(RefusalSearchTooLong, "bytes", len(p.Search), "max", MaxSearch)
	}
	return "%" + likeEscaper.Replace(p.Search) + "%", nil
}

// RefusalSearchTooLong is the refusal of a trigger listing's search, which
// the console says in the page's language beside the filters; a cursor
// that is no id is every listing's run.RefusalListNotAnID.
const RefusalSearchTooLong qlerror.Reason = "trigger_search_too_long"

// CheckCursor refuses a page cursor (After) that is not a trigger id: an
// address edited by hand, or cut short when it was copied.
func (p TriggerListParams) CheckCursor() error {
	if p.After == "" {
		return nil
	}
	if err := ids.Validate("after", p.After); err != nil {
		return qlerror.Wrap(qlerror.Invalid, err, "trigger listing: give the page cursor (after) as the id of the last trigger of the previous page, as `ql triggers list -o json` prints it, or leave it out for the first page").
			Because(run.RefusalListNotAnID, "parameter", "after", "value", qlerror.Echoed(p.After))
	}
	return nil
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// StatusReader lists triggers with their schedule state.
type StatusReader interface {
	TriggerList(ctx context.Context, p TriggerListParams) (list []TriggerStatus, next string, err error)
}

// TriggerCounter counts the triggers a listing matches: p's project,
// search and projects filters as TriggerList applies them, its Limit and
// After ignored, so that a list's pages can be counted without reading
// every match.
type TriggerCounter interface {
	TriggerCount(ctx context.Context, p TriggerListParams) (int, error)
}

// StatusCounter lists triggers and counts them, as the console's triggers
// list does for its pages.
type StatusCounter interface {
	StatusReader
	TriggerCounter
}

// TriggerSnapshotter reads trigger listings and counts from one snapshot
// of the store: every listing and count fn makes through the reader it is
// given sees the same triggers, whatever is published or deleted
// meanwhile, so a page and the count shown beside it agree. The reader is
// fn's alone and only while fn runs.
type TriggerSnapshotter interface {
	TriggerSnapshot(ctx context.Context, fn func(StatusCounter) error) error
}

// StatusPager is what the console's triggers list reads: listings and
// counts, alone or from one snapshot.
type StatusPager interface {
	StatusCounter
	TriggerSnapshotter
}
