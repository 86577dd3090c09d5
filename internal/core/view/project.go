package view

import (
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// Project is a project as GET /api/v1/projects/{name} answers it and
// `ql projects show -o json` prints it: its id, name, status, revision
// and pause, and nothing of its definitions.
type Project struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Title is the project's display title, absent when it has none.
	Title  string `json:"title,omitempty"`
	Status string `json:"status"`
	// MaxRunning is the project's cap on its Runs holding a slot at once,
	// absent when it has none.
	MaxRunning int `json:"maxRunning,omitempty"`
	// Env is the project's env, the variables every task of it starts
	// with, in name order; absent when it has none. A secret is named,
	// never its value.
	Env []ProjectEnvVar `json:"env,omitempty"`
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

// ProjectList is one page of the projects there are in name order, as
// `ql projects list` and GET /api/v1/projects give them: at most
// ProjectListLimit, More set and Next the cursor of the next page (the
// page's last name, which GET /api/v1/projects?after= takes) when there
// are others past the last one.
type ProjectList struct {
	Projects []ProjectListed `json:"projects" doc:"The page's projects, in name order, at most 1000."`
	More     bool            `json:"more,omitempty" doc:"True when projects follow past the page; absent on the last page."`
	Next     string          `json:"next,omitempty" doc:"The cursor of the next page (the page's last name), given back as ?after=; absent on the last page."`
}

// ProjectListed is one project of a ProjectList.
type ProjectListed struct {
	// ID is the project's id, which the listings' project filters and
	// the Runs and triggers name.
	ID   string `json:"id" doc:"The project's id, which the listings' project filters and the Runs and triggers name."`
	Name string `json:"name" doc:"The project's name."`
	// Title is the project's display title, absent when it has none.
	Title  string `json:"title,omitempty" doc:"The project's display title; absent when it has none."`
	Status string `json:"status" doc:"active or archived."`
	// Paused is whether the project is paused as a whole (`ql projects
	// pause`); a trigger paused on its own does not count.
	Paused bool `json:"paused" doc:"Whether the project is paused as a whole (ql projects pause); a trigger paused on its own does not count."`
}

// ProjectListLimit is the most projects a ProjectList holds: past it a
// list would be read by name (`ql projects show`), not by eye.
const ProjectListLimit = 1000

// NewProjectList is the page of names read with a limit of limit+1: the
// one past the limit only says there are more, and the page's last name
// is then the next page's cursor.
func NewProjectList(names []catalog.ProjectName, limit int) ProjectList {
	l := ProjectList{Projects: []ProjectListed{}}
	if len(names) > limit {
		names, l.More = names[:limit], true
	}
	for _, n := range names {
		l.Projects = append(l.Projects, ProjectListed{ID: n.ID, Name: n.Name, Title: n.Title, Status: string(n.Status), Paused: n.Paused})
	}
	if l.More && len(names) > 0 {
		l.Next = names[len(names)-1].Name
	}
	return l
}

// ProjectEnvVar is one variable of a project's env: its value as written,
// or the name of the secret it is set from (Secret, Value then absent).
type ProjectEnvVar struct {
	Name   string `json:"name"`
	Value  string `json:"value,omitempty"`
	Secret string `json:"secret,omitempty"`
}

// NewProject is p as a Project of revision rev, without its pause.
func NewProject(p project.Project, rev string) Project {
	out := Project{ID: p.ID, Name: p.Name, Title: p.Title, Status: string(p.Status), MaxRunning: p.MaxRunning, Revision: rev}
	for _, e := range p.Env {
		out.Env = append(out.Env, ProjectEnvVar{Name: e.Name, Value: e.Value, Secret: e.SecretRef})
	}
	return out
}
