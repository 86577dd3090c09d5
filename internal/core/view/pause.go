package view

import "github.com/qinglong/qinglong/internal/core/schedule"

// PauseChange is what a pause or resume answers of a trigger and of a
// project alike: whether the request changed anything, whether it is
// paused now, the pause's note, and when it was paused or resumed (the
// store's clock).
type PauseChange struct {
	Changed bool   `json:"changed"`
	Paused  bool   `json:"paused"`
	Note    string `json:"note,omitempty"`
	AtMs    int64  `json:"atMs"`
	// Queued is, at a pause, how many Runs of what was paused are queued
	// and still start (up to run.QueuedCountCap); 0 at a resume.
	Queued int `json:"queued"`
}

// TriggerPause is a trigger's pause state after a pause or resume (POST
// /api/v1/triggers/{id}/pause and /resume).
type TriggerPause struct {
	TriggerID string `json:"triggerId"`
	PauseChange
}

// NewTriggerPause is the answer to a pause or resume of trigger id.
func NewTriggerPause(id string, res schedule.PauseResult) TriggerPause {
	return TriggerPause{TriggerID: id, PauseChange: PauseChange{Changed: res.Changed, Paused: res.Paused, Note: res.Note, AtMs: res.AtMs, Queued: res.Queued}}
}

// Result is the pause result v answers.
func (v TriggerPause) Result() schedule.PauseResult {
	return schedule.PauseResult{Changed: v.Changed, Paused: v.Paused, Note: v.Note, AtMs: v.AtMs, Queued: v.Queued}
}

// ProjectPause is a project's pause state after a pause or resume (POST
// /api/v1/projects/{project}/pause and /resume).
type ProjectPause struct {
	ProjectID   string `json:"projectId"`
	ProjectName string `json:"projectName"`
	PauseChange
	Actor string `json:"actor,omitempty"`
	// Triggers is how many triggers this request paused or resumed.
	Triggers int `json:"triggers"`
	// KeptPaused is how many of the project's triggers stay paused on
	// their own once it is not paused.
	KeptPaused int `json:"keptPaused"`
	// AlreadyPaused is, at a pause, how many of the project's triggers
	// were already paused on their own (and keep their own pause).
	AlreadyPaused int `json:"alreadyPaused"`
}

// NewProjectPause is the answer to a project's pause or resume.
func NewProjectPause(res schedule.ProjectPauseResult) ProjectPause {
	return ProjectPause{ProjectID: res.ProjectID, ProjectName: res.ProjectName, PauseChange: PauseChange{Changed: res.Changed, Paused: res.Paused, Note: res.Note, AtMs: res.AtMs, Queued: res.Queued},
		Actor: res.Actor, Triggers: res.Triggers, KeptPaused: res.KeptPaused, AlreadyPaused: res.AlreadyPaused}
}

// Result is the project pause result v answers.
func (v ProjectPause) Result() schedule.ProjectPauseResult {
	return schedule.ProjectPauseResult{ProjectID: v.ProjectID, ProjectName: v.ProjectName, Changed: v.Changed, Paused: v.Paused, Note: v.Note,
		Actor: v.Actor, AtMs: v.AtMs, Triggers: v.Triggers, KeptPaused: v.KeptPaused, AlreadyPaused: v.AlreadyPaused, Queued: v.Queued}
}
