package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// Trigger listing page bounds.
const (
	defaultTriggerPage = 50
	maxTriggerPage     = 500
)

// TriggerList lists triggers with their schedule state, by trigger id.
func (r *Runtime) TriggerList(ctx context.Context, p schedule.TriggerListParams) ([]schedule.TriggerStatus, string, error) {
	return listTriggers(ctx, r.pool, p)
}

// listTriggers is TriggerList through q: the pool, or a snapshot's
// transaction.
func listTriggers(ctx context.Context, q querier, p schedule.TriggerListParams) ([]schedule.TriggerStatus, string, error) {
	if p.Limit == 0 {
		p.Limit = defaultTriggerPage
	}
	if p.Limit < 1 || p.Limit > maxTriggerPage {
		return nil, "", qlerror.New(qlerror.Invalid, "trigger page size %d is outside 1–%d", p.Limit, maxTriggerPage)
	}
	var projectID, after *string
	if p.ProjectID != "" {
		if err := ids.Validate("projectId", p.ProjectID); err != nil {
			return nil, "", qlerror.Wrap(qlerror.Invalid, err, "trigger listing")
		}
		projectID = &p.ProjectID
	}
	if err := p.CheckCursor(); err != nil {
		return nil, "", err
	}
	if p.After != "" {
		after = &p.After
	}
	var search *string
	pattern, err := p.SearchPattern()
	if err != nil {
		return nil, "", err
	}
	if pattern != "" {
		search = &pattern
	}
	var inProjects []string
	if len(p.InProjects) > 0 {
		inProjects = p.InProjects
	}
	rows, err := q.Query(ctx, sqlTriggerList, projectID, after, p.Limit+1, search, inProjects, p.TitlesOnly)
	if err != nil {
		return nil, "", mapErr(err, "listing triggers")
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (schedule.TriggerStatus, error) {
		var s schedule.TriggerStatus
		var policy string
		var pol policyCols
		var cursor, due *int64
		var archived, inNames bool
		var mode string
		err := row.Scan(&s.ProjectID, &s.ProjectName, &s.TriggerID, &s.Name, &s.Revision, &s.Enabled, &s.Cron.Expression, &s.Cron.Timezone,
			&policy, &pol.jitter, &pol.start, &pol.end, &pol.window, &pol.overlap,
			&s.TaskID, &s.TaskName, &s.TaskRevision, &cursor, &due, &s.LastScheduledAtMs, &s.StateVersion, &s.ClaimOwner, &s.ClaimExpiresAtMs, &s.Paused, &s.PausedWithProject, &archived,
			&s.Title, &s.TaskTitle, &s.ProjectTitle, &inNames, &mode)
		s.SetCursor(cursor, due)
		s.SetArchived(archived)
		s.FoundIn = schedule.FoundInOf(search != nil, inNames, mode)
		s.Cron.MisfirePolicy = trigger.MisfirePolicy(policy)
		pol.into(&s.Cron)
		return s, err
	})
	if err != nil {
		return nil, "", mapErr(err, "listing triggers")
	}
	next := ""
	if len(list) > p.Limit {
		list = list[:p.Limit]
		next = list[len(list)-1].TriggerID
	}
	return list, next, nil
}
