package apply

import (
	"context"
	"strings"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// recordStatus records, in the publishing transaction tx, that actor
// archived the project name or made it active again, when results (the
// project's first) say the apply changed its status: the change and its
// record commit together or not at all. A project created, whatever its
// status, records nothing of it.
func recordStatus(ctx context.Context, tx catalog.Tx, name string, results []Result, actor string) error {
	if len(results) == 0 || results[0].Kind != "project" || results[0].Change != catalog.Updated {
		return nil
	}
	var change string
	for _, f := range results[0].Fields {
		if strings.HasPrefix(f, "status ") {
			change = f
		}
	}
	if change == "" {
		return nil
	}
	rec, ok := tx.(audit.Appender)
	if !ok {
		return qlerror.New(qlerror.FailedPrecondition, "this store cannot record who archives or activates a project; nothing was applied")
	}
	p, err := tx.ProjectByName(ctx, name)
	if err != nil {
		return err
	}
	action := audit.ProjectActivated
	if p.Status == project.Archived {
		action = audit.ProjectArchived
	}
	return rec.AuditAppend(ctx, audit.Entry{Actor: actor, Action: action, ObjectKind: audit.KindProject, ObjectID: p.ID, ObjectName: p.Name, Project: p.Name, Note: change})
}
