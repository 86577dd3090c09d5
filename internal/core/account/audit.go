package account

import (
	"strings"

	"github.com/qinglong/qinglong/internal/core/audit"
)

// Created is the audit record of u's creation: its name, role and the
// projects it is bound to, never its hash. note says how it was made when
// not by `ql users create`.
func Created(u NewUser, note string) audit.Entry {
	if note == "" {
		note = "role " + string(u.Role)
	} else {
		note += ", role " + string(u.Role)
	}
	if len(u.Projects) > 0 {
		note += ", " + ProjectsNote(u.Projects)
	}
	return audit.Entry{Actor: u.Actor, Action: audit.UserCreated, ObjectKind: audit.KindUser, ObjectID: u.ID, ObjectName: u.Name, Note: note}
}

// Change is a change to an existing account by name, for its audit
// record: what was done and by whom.
type Change struct {
	Action audit.Action
	Name   string
	Actor  string
	// Note says more of the change: the projects a binding sets.
	Note string
}

// Entry is c's audit record once the store found the account's id.
func (c Change) Entry(id string) audit.Entry {
	return audit.Entry{Actor: c.Actor, Action: c.Action, ObjectKind: audit.KindUser, ObjectID: id, ObjectName: c.Name, Note: c.Note}
}

// ProjectsNote is how a record says the projects an account is bound to:
// "projects alpha, beta", or "every project" for none.
func ProjectsNote(projects []string) string {
	if len(projects) == 0 {
		return "every project"
	}
	return "projects " + strings.Join(projects, ", ")
}
