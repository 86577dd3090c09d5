package view

import "github.com/qinglong/qinglong/internal/core/project"

// ProjectDeletion is the answer to a project's deletion (or its dry run):
// what went, or would go.
type ProjectDeletion struct {
	ProjectID     string `json:"projectId,omitempty"`
	ProjectName   string `json:"projectName"`
	DryRun        bool   `json:"dryRun"`
	Tasks         int64  `json:"tasks"`
	Triggers      int64  `json:"triggers"`
	Runs          int64  `json:"runs"`
	Attempts      int64  `json:"attempts"`
	Events        int64  `json:"events"`
	Logs          int64  `json:"logs"`
	LogBytes      int64  `json:"logBytes"`
	Ledger        int64  `json:"ledger"`
	Audit         int64  `json:"audit"`
	Notifications int64  `json:"notifications"`
	// Secrets are the PROJECT/NAME secrets removed from the secrets file
	// (or, dry, that would be); always a list.
	Secrets []string `json:"secrets"`
	// LogsKept are the log files left on disk: asking again removes them.
	LogsKept []string `json:"logsKept,omitempty"`
	// Leftovers: the project was deleted before, and this request only
	// removed what was left of its logs.
	Leftovers bool `json:"leftovers,omitempty"`
}

// NewProjectDeletion is the answer for res.
func NewProjectDeletion(res project.DeleteResult) ProjectDeletion {
	c := res.Deleted
	v := ProjectDeletion{ProjectID: res.ProjectID, ProjectName: res.ProjectName, DryRun: res.DryRun, Tasks: c.Tasks, Triggers: c.Triggers,
		Runs: c.Runs, Attempts: c.Attempts, Events: c.Events, Logs: c.Logs, LogBytes: c.LogBytes, Ledger: c.Ledger, Audit: c.Audit,
		Notifications: c.Notifications, Secrets: append([]string{}, res.Secrets...), Leftovers: res.Leftovers}
	for _, k := range res.Kept {
		v.LogsKept = append(v.LogsKept, k.Path)
	}
	return v
}
