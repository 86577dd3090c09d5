package view

import "github.com/qinglong/qinglong/internal/core/schedule"

// Project is a project as GET /api/v1/projects/{name} answers it and
// `ql projects show -o json` prints it: its id, name, status, revision
// and pause, and nothing of its definitions.
type Project struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Title is the project's display title, absent when it has none.
	Title  string `json:"title,omitempty"`
	Status string `json:"status"`
	// Revision is the project's revision (apply.SpecRevision), also its
	// ETag, which an apply's If-Match names; left out of a project past
	// apply.RevisionLimit, which has none.
	Revision string `json:"revision,omitempty"`
	// Pause is whether the project is paused (`ql projects pause`); left
	// out where the pause state cannot be read.
	Pause *ProjectPauseState `json:"pause,omitempty"`
}

// ProjectPauseState is a project's pause state: while paused, the pause's
// note, actor and time; once resumed, the resume's actor and time (none
// for a project never paused).
type ProjectPauseState struct {
	Paused bool   `json:"paused"`
	Note   string `json:"note,omitempty"`
	Actor  string `json:"actor,omitempty"`
	AtMs   int64  `json:"atMs,omitempty"`
}

// NewProjectPauseState is st as a Project's Pause.
func NewProjectPauseState(st schedule.ProjectPauseState) *ProjectPauseState {
	return &ProjectPauseState{Paused: st.Paused, Note: st.Note, Actor: st.Actor, AtMs: st.AtMs}
}
