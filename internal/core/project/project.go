// Package project is the Project aggregate: the unit that owns tasks and
// triggers and whose status gates scheduling (only active projects schedule).
package project

import (
	"slices"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// Status of a project.
type Status string

// The states of a project.
const (
	Active   Status = "active"
	Archived Status = "archived"
)

// Project is a named container of tasks and triggers.
type Project struct {
	ID     string
	Name   string
	Status Status
	// Notifications is the project's notification settings in their
	// canonical stored form (notify.Spec.Encode); "" is none.
	Notifications string
	// Title is the project's display title beside its name, in any
	// language; "" is none (validate.Title).
	Title string
	// MaxRunning caps how many of the project's Runs hold a slot
	// (dispatching or running) at once, so that one team's runaway
	// trigger or backfill cannot take every slot of a shared server or
	// cluster; 0 is no cap.
	MaxRunning int
	// Env is the project's environment, sorted by name: the variables
	// every task of the project starts with, a task's own variable of the
	// same name winning (task.Command.WithProjectEnv). A secret is named,
	// never held: its value is resolved where the command starts.
	Env []task.EnvVar
}

// Same reports whether p and q hold the same fields, their environments
// variable by variable.
func (p Project) Same(q Project) bool {
	return p.ID == q.ID && p.Name == q.Name && p.Status == q.Status && p.Notifications == q.Notifications &&
		p.Title == q.Title && p.MaxRunning == q.MaxRunning && slices.Equal(p.Env, q.Env)
}

// MaxMaxRunning bounds MaxRunning: far above any server's or cluster's
// slots, so a larger number is a mistake (a timeout or a count typed in
// the wrong field) rather than a cap.
const MaxMaxRunning = 10000

// Validate checks every field against its limit.
func (p Project) Validate() error {
	if err := ids.Validate("project.id", p.ID); err != nil {
		return qlerror.Wrap(qlerror.Invalid, err, "invalid project")
	}
	if err := validate.Name("project.name", p.Name); err != nil {
		return err
	}
	if err := validate.Title("project.title", p.Title); err != nil {
		return err
	}
	if p.MaxRunning < 0 || p.MaxRunning > MaxMaxRunning {
		return qlerror.New(qlerror.Invalid, "project.maxRunning: %d is outside 1 … %d", p.MaxRunning, MaxMaxRunning).
			Because(validate.RefusalOutOfRange, "field", "project.maxRunning", "value", p.MaxRunning, "min", 1, "max", MaxMaxRunning)
	}
	if err := task.ValidateProjectEnv(p.Env); err != nil {
		return err
	}
	if p.Status != Active && p.Status != Archived {
		return qlerror.New(qlerror.Invalid, "project.status: %q is not one of active, archived", p.Status).
			Because(validate.RefusalNotOneOf, "field", "project.status", "value", p.Status, "allowed", "active, archived")
	}
	// Every Run's end reads the settings back: only a canonical, valid
	// form may be stored, so none can fail a finish.
	spec, err := notify.Decode(p.Notifications)
	if err != nil {
		return qlerror.Wrap(qlerror.Invalid, err, "project.notifications: not valid settings")
	}
	if err := spec.Validate(); err != nil {
		return err
	}
	if spec.Encode() != p.Notifications {
		return qlerror.New(qlerror.Invalid, "project.notifications: not in canonical form (notify.Spec.Encode)")
	}
	return nil
}
