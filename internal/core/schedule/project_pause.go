package schedule

import (
	"context"
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// ProjectPauseRequest pauses (Pause) or resumes a whole project. Project
// is its name or id. Pausing pauses every trigger of the project that is
// not paused already, marking each pause as the project's, and a trigger
// published into the project while it is paused starts paused the same
// way. Resuming resumes exactly the triggers whose pause is still the
// project's: a trigger paused on its own (before the project, or during
// its pause, which makes the pause its own) stays paused with its note.
type ProjectPauseRequest struct {
	Project string
	Pause   bool
	Note    string
	Actor   string
	// SinceMs is PauseRequest's: a handed-over pause's start, which the
	// project's record and its triggers' pauses keep.
	SinceMs int64
}

// RefusalProjectUnknown is a project pause or resume naming no project
// (by name or id). The catalog's own read of a project by name says the
// same as catalog.RefusalProjectMissing; this package sits below the
// catalog, so it names the reason once more with the same value.
const RefusalProjectUnknown qlerror.Reason = "project_missing"

// Validate refuses an empty project and a note a trigger pause would
// refuse (each trigger's pause carries the project's note).
func (r ProjectPauseRequest) Validate() error {
	if strings.TrimSpace(r.Project) == "" {
		return qlerror.New(qlerror.Invalid, "give a project's name or id (`ql triggers list` shows each trigger's project)").Because(RefusalProjectUnknown, "name", r.Project)
	}
	return PauseRequest{Note: r.Note}.validateNote()
}

// ProjectPauseResult is a project's pause state after a
// ProjectPauseRequest. Changed is false when it already was in the state
// asked for: nothing is written, and Note, Actor and AtMs are those of the
// pause in force (a paused project) or of the last resume.
type ProjectPauseResult struct {
	ProjectID   string
	ProjectName string
	Changed     bool
	Paused      bool
	Note        string
	Actor       string
	AtMs        int64
	// Triggers is how many triggers this change paused (or resumed); 0
	// when nothing changed.
	Triggers int
	// KeptPaused is, at a resume, how many triggers of the project stay
	// paused on their own.
	KeptPaused int
	// AlreadyPaused is, at a pause that changed the project, how many of
	// its triggers were paused on their own before it: Triggers alone
	// would read as all of them.
	AlreadyPaused int
	// Queued is, at a pause, how many of the project's Runs are queued,
	// up to run.QueuedCountCap: a pause admits no new Run but leaves
	// those to start. The reader that answers the pause fills it.
	Queued int
}

// ProjectPauser pauses and resumes projects: each trigger's pause is the
// trigger pause of Pauser (same state, audit record and ledger), marked as
// the project's, all in one transaction with the project's own record.
// An unknown project is NotFound; an archived one is refused
// (FailedPrecondition): nothing of it runs anyway, and a reactivation
// must not find pauses nobody can see.
type ProjectPauser interface {
	ProjectPause(ctx context.Context, r ProjectPauseRequest) (ProjectPauseResult, error)
}

// ProjectMissing is the error for a project that does not exist.
func ProjectMissing(project string) error {
	return qlerror.New(qlerror.NotFound, "project %s does not exist; `ql triggers list` shows each trigger's project", project).Because(RefusalProjectUnknown, "name", project)
}

// ProjectArchived is the error for pausing or resuming an archived project.
func ProjectArchived(project string) error {
	return qlerror.New(qlerror.FailedPrecondition, "project %s is archived, so none of its triggers runs; make it active (status: active, then `ql apply`) before pausing or resuming it", project).Because(RefusalProjectArchived)
}
