package audit

import (
	"context"
	"fmt"
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Appender writes one record in a transaction of its own: the record of
// a change made outside the store (a secret's, in the secrets file),
// which no transaction of the store can hold with its record.
type Appender interface {
	AuditAppend(ctx context.Context, e Entry) error
}

// CodeNotRecorded is the log code of a change made outside the store
// whose record the trail could not write: the server's log keeps who made
// it.
const CodeNotRecorded = "audit.not_recorded"

// RefusalNotRecorded is the reason of a change made outside the store
// that stands but whose record the trail could not write.
const RefusalNotRecorded qlerror.Reason = "audit_not_recorded"

// RecordDone appends e once the change it records (done, "secret alpha/key
// was set in FILE") has succeeded outside the store. A record that cannot
// be written is an error saying the change stands unrecorded, so that it
// is neither lost silently nor taken for recorded.
func RecordDone(ctx context.Context, a Appender, e Entry, done string) error {
	if err := a.AuditAppend(ctx, e); err != nil {
		return qlerror.Wrap(qlerror.Unavailable, err, "%s and stands, but the audit trail could not record it (%s): "+
			"note who made it elsewhere, and fix the database before the next change", done, string(e.Action)).
			Because(RefusalNotRecorded, "action", string(e.Action), "name", e.ObjectName)
	}
	return nil
}

// Secret is the record of a secret set (replaced or not) or deleted: its
// name only, never its value; a PROJECT/NAME secret is of its project.
func Secret(action Action, actor, name string, replaced bool) Entry {
	e := Entry{Actor: actor, Action: action, ObjectKind: KindSecret, ObjectID: name, ObjectName: name}
	if project, _, ok := strings.Cut(name, "/"); ok {
		e.Project = project
	}
	if replaced {
		e.Note = "replaced"
	}
	return e
}

// Script is the record of a change of a file in a single node's scripts
// folder, by its path there: its size and sha256 after the change (before
// it, for a delete), never its content; note adds to them.
func Script(action Action, actor, path string, size int64, sha256, note string) Entry {
	facts := fmt.Sprintf("%d bytes, sha256 %s", size, sha256)
	if note != "" {
		facts += ", " + note
	}
	return Entry{Actor: actor, Action: action, ObjectKind: KindScript, ObjectID: path, ObjectName: path, Note: facts}
}

// ScriptFolder is the record of a change of the scripts folder that is
// no one file's content (a folder made or deleted, a rename), by its path
// and a note.
func ScriptFolder(action Action, actor, path, note string) Entry {
	return Entry{Actor: actor, Action: action, ObjectKind: KindScript, ObjectID: path, ObjectName: path, Note: note}
}

// Subscription is the record of a change of a subscription of project,
// by its name and its URL, which the caller gives without credentials;
// note adds what changed.
func Subscription(action Action, actor, project, name, url, note string) Entry {
	if note != "" {
		url += ", " + note
	}
	return Entry{Actor: actor, Action: action, ObjectKind: KindSubscription, ObjectID: name, ObjectName: name, Project: project, Note: url}
}

// Dependency is the record of a change of a declared package, by its
// kind and name (node/axios); note says what was asked for (its
// specifier) and the Run that installs or removes it.
func Dependency(action Action, actor, kind, name, note string) Entry {
	id := kind + "/" + name
	return Entry{Actor: actor, Action: action, ObjectKind: KindDependency, ObjectID: id, ObjectName: id, Note: note}
}
