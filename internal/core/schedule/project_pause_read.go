package schedule

import (
	"context"
	"fmt"
)

// ProjectPauseState is whether a project is paused: while it is, Note,
// Actor and AtMs are its pause's; once resumed, Actor and AtMs are the
// resume's (zero for a project never paused).
type ProjectPauseState struct {
	ProjectID   string
	ProjectName string
	Paused      bool
	Note        string
	Actor       string
	AtMs        int64
}

// ProjectPauseReader reads a project's pause state, for the pages and
// commands that show a project: they offer the one of pause and resume
// that applies and say since when and by whom it is paused. Project is
// its name or id; an unknown one is NotFound (ProjectMissing). An
// archived project is read as any other: nothing of it runs, whatever
// its pause.
type ProjectPauseReader interface {
	ProjectPauseRead(ctx context.Context, project string) (ProjectPauseState, error)
}

// PausedAtPublishActor is the actor of the audit record of a trigger
// published into a paused project, which starts paused with it: the pause
// is the project's, asked for by projectActor, and the publish only
// applied it, so the record names both.
func PausedAtPublishActor(projectActor string) string {
	return fmt.Sprintf("%s (paused with its project, at publish)", projectActor)
}
