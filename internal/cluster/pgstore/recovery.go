package pgstore

import (
	"context"

	"github.com/qinglong/qinglong/internal/cluster/recovery"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

var _ recovery.Source = (*Runtime)(nil)

// RecoveryPage examines up to p.Limit unfinished Runs after p.After that
// were created at or before the database-time horizon, and returns those
// no rule moves on: neither waiting for a worker or a backoff nor held
// under a lease (see sql/recovery_page.sql). It only reads.
func (r *Runtime) RecoveryPage(ctx context.Context, p recovery.PageParams) (recovery.Page, error) {
	if p.Limit < 1 || p.Limit > recovery.MaxPageSize {
		return recovery.Page{}, qlerror.New(qlerror.Invalid, "recovery page size %d is outside 1–%d", p.Limit, recovery.MaxPageSize)
	}
	var horizon, after any
	if p.HorizonMs != 0 {
		horizon = p.HorizonMs
	}
	if p.After != "" {
		if err := ids.Validate("recovery cursor", p.After); err != nil {
			return recovery.Page{}, qlerror.Wrap(qlerror.Invalid, err, "recovery page")
		}
		after = p.After
	}
	rows, err := r.pool.Query(ctx, sqlRecoveryPage, horizon, after, p.Limit)
	if err != nil {
		return recovery.Page{}, mapErr(err, "reading recovery candidates")
	}
	defer rows.Close()
	var page recovery.Page
	var last *string
	for rows.Next() {
		var c struct {
			id, project, trigger, state, reason *string
			number, updated                     *int64
		}
		if err := rows.Scan(&page.HorizonMs, &page.Examined, &last, &c.id, &c.project, &c.trigger, &c.state, &c.reason, &c.number, &c.updated); err != nil {
			return recovery.Page{}, mapErr(err, "reading recovery candidates")
		}
		if c.id == nil {
			continue
		}
		page.Candidates = append(page.Candidates, recovery.Candidate{
			RunID: *c.id, ProjectID: *c.project, TriggerID: deref(c.trigger), State: run.State(*c.state),
			Reason: *c.reason, AttemptNumber: derefInt(c.number), UpdatedAtMs: *c.updated,
		})
	}
	if err := rows.Err(); err != nil {
		return recovery.Page{}, mapErr(err, "reading recovery candidates")
	}
	if page.Examined == p.Limit && last != nil {
		page.Next = *last
	}
	return page, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func derefInt(n *int64) int64 {
	if n == nil {
		return 0
	}
	return *n
}
