// Package project is the Project aggregate: the unit that owns tasks and
// triggers and whose status gates scheduling (only active projects schedule).
package project

import (
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/qlerror"
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
}

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
