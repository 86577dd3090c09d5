package schedule

import (
	"strconv"

	"github.com/qinglong/qinglong/internal/core/audit"
)

// Audited is the audit record of the project pause or resume r made as
// out says (Changed true): who, the project, the triggers it changed
// and the request's note (a pause's, or the one a resume was given).
func (r ProjectPauseRequest) Audited(out ProjectPauseResult) audit.Entry {
	action := audit.ProjectResumed
	if r.Pause {
		action = audit.ProjectPaused
	}
	note := strconv.Itoa(out.Triggers) + " trigger(s)"
	if r.Note != "" {
		note += ": " + r.Note
	}
	return audit.Entry{Actor: r.Actor, Action: action, ObjectKind: audit.KindProject, ObjectID: out.ProjectID, ObjectName: out.ProjectName, Project: out.ProjectName, Note: note}
}
