package cli

import (
	"context"
	"net/url"
	"strconv"

	"github.com/qinglong/qinglong/internal/core/audit"
)

// AuditList reads one page of the server's audit trail.
func (c *apiClient) AuditList(ctx context.Context, aq audit.Query) (audit.Page, error) {
	q := url.Values{}
	if aq.SinceMs > 0 {
		q.Set("since_ms", strconv.FormatInt(aq.SinceMs, 10))
	}
	setIf(q, "actor", aq.Actor)
	setIf(q, "action", string(aq.Action))
	setIf(q, "project", aq.Project)
	setIf(q, "after", aq.After)
	if aq.Limit > 0 {
		q.Set("limit", strconv.Itoa(aq.Limit))
	}
	var page audit.Page
	err := c.get(ctx, "/api/v1/audit", q, &page)
	return page, err
}
