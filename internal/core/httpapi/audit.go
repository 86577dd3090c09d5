package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

var errNoAudit = qlerror.New(qlerror.FailedPrecondition, "this server cannot list the audit trail over the API; use `ql audit list`").Because(RefusalNotOverTheAPI)

// auditList lists the audit trail newest first, as `ql audit list` does,
// a page after the cursor. A token bound to projects reads only the
// records of its projects: the store filters them, so a page is full.
func (a *api) auditList(ctx context.Context, r *http.Request) (any, error) {
	q, err := params(r.URL.Query(), "action", "actor", "after", "limit", "project", "since_ms")
	if err != nil {
		return nil, err
	}
	if a.Audit == nil {
		return nil, errNoAudit
	}
	n, err := count("limit", q["limit"], audit.DefaultListed, audit.MaxListed)
	if err != nil {
		return nil, err
	}
	aq := audit.Query{Actor: q["actor"], Action: audit.Action(q["action"]), Project: q["project"], After: q["after"], Limit: n}
	if raw := q["since_ms"]; raw != "" {
		if aq.SinceMs, err = strconv.ParseInt(raw, 10, 64); err != nil || aq.SinceMs < 0 {
			return nil, qlerror.New(qlerror.Invalid, "query parameter since_ms is %q; give a time in Unix milliseconds, or leave it out for every record", clip(raw)).
				Because(audit.RefusalAuditQuery, "since_ms", clip(raw))
		}
	}
	if t := tokenOf(ctx); t.Bound() {
		aq.Projects = t.Projects
	}
	page, err := a.Audit.AuditList(ctx, aq)
	if page.Records == nil {
		page.Records = []audit.Record{}
	}
	return page, err
}
