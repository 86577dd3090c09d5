package apitoken

import (
	"strings"

	"github.com/qinglong/qinglong/internal/core/audit"
)

// Created is the audit record of t's creation: its name, scope, expiry
// and projects, never its secret or digest.
func (t NewToken) Created() audit.Entry {
	note := "scope " + string(t.Scope)
	if t.ExpiresIn > 0 {
		note += ", expires in " + t.ExpiresIn.String()
	}
	if len(t.Projects) > 0 {
		note += ", projects " + strings.Join(t.Projects, ",")
	}
	return audit.Entry{Actor: t.Actor, Action: audit.TokenCreated, ObjectKind: audit.KindToken, ObjectID: t.ID, ObjectName: t.Name, Note: note}
}

// Revoked is the audit record of the revocation of the token id, named
// name, by actor.
func Revoked(id, name, actor string) audit.Entry {
	return audit.Entry{Actor: actor, Action: audit.TokenRevoked, ObjectKind: audit.KindToken, ObjectID: id, ObjectName: name}
}
