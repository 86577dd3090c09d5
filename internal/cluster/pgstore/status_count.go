package pgstore

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

var _ schedule.TriggerCounter = (*Runtime)(nil)

// TriggerCount counts the triggers TriggerList's filters match, in one
// statement, refusing what TriggerList refuses of them.
func (r *Runtime) TriggerCount(ctx context.Context, p schedule.TriggerListParams) (int, error) {
	var projectID *string
	if p.ProjectID != "" {
		if err := ids.Validate("projectId", p.ProjectID); err != nil {
			return 0, qlerror.Wrap(qlerror.Invalid, err, "trigger count")
		}
		projectID = &p.ProjectID
	}
	var search *string
	pattern, err := p.SearchPattern()
	if err != nil {
		return 0, err
	}
	if pattern != "" {
		search = &pattern
	}
	var inProjects []string
	if len(p.InProjects) > 0 {
		inProjects = p.InProjects
	}
	var n int
	if err := r.pool.QueryRow(ctx, sqlTriggerCount, projectID, search, inProjects, p.TitlesOnly).Scan(&n); err != nil {
		return 0, mapErr(err, "counting triggers")
	}
	return n, nil
}
