package httpapi

import (
	"context"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// projectView is GET /api/v1/projects/{name}'s answer: the project's id,
// name, status, revision and pause, and nothing of its definitions.
type projectView struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Title is the project's display title, absent when it has none.
	Title  string `json:"title,omitempty"`
	Status string `json:"status"`
	// Revision is the project's revision (apply.SpecRevision), also its
	// ETag, which an apply's If-Match names; left out of a project past
	// apply.RevisionLimit.
	Revision string `json:"revision,omitempty"`
	// Pause is whether the project is paused (`ql projects pause`); left
	// out where the server cannot read it.
	Pause *projectPauseState `json:"pause,omitempty"`
}

// projectPauseState is a project's pause state: while paused, the pause's
// note, actor and time; once resumed, the resume's actor and time (none
// for a project never paused).
type projectPauseState struct {
	Paused bool   `json:"paused"`
	Note   string `json:"note,omitempty"`
	Actor  string `json:"actor,omitempty"`
	AtMs   int64  `json:"atMs,omitempty"`
}

// projectGet finds a project by name. Read scope, as the listings it
// serves: a project whose file had tasks alone has no trigger yet, so the
// trigger listing, where a reader finds the other projects' ids, does not
// know it, and a listing filtered by it must be an empty list, not an
// unknown name.
func (a *api) projectGet(ctx context.Context, r *http.Request) (any, error) {
	if _, err := params(r.URL.Query()); err != nil {
		return nil, err
	}
	if a.Export == nil {
		return nil, qlerror.New(qlerror.FailedPrecondition, "this server cannot read projects; run the command where its database is").Because(RefusalNotOverTheAPI)
	}
	// As the definitions route: a malformed name is 400, an unknown one
	// 404 naming the projects there are.
	name := r.PathValue("name")
	if err := validate.Name("project", name); err != nil {
		return nil, err
	}
	d, err := a.Export.ProjectDefinitions(ctx, name, apply.RevisionLimit)
	if qlerror.ReasonOf(err) == catalog.RefusalProjectMissing {
		return nil, apply.ProjectMissing(ctx, a.Export, name)
	}
	if err != nil {
		return nil, err
	}
	rev := apply.SpecRevision(d)
	view := projectView{ID: d.Project.ID, Name: d.Project.Name, Title: d.Project.Title, Status: string(d.Project.Status), Revision: rev}
	if a.ProjectPauses != nil {
		st, err := a.ProjectPauses.ProjectPauseRead(ctx, d.Project.ID)
		if err != nil {
			return nil, err
		}
		view.Pause = &projectPauseState{Paused: st.Paused, Note: st.Note, Actor: st.Actor, AtMs: st.AtMs}
	}
	return taggedAnswer{etag: rev, body: view}, nil
}
