package console

import (
	"net/http"
	"net/url"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// auditPage is how many records a page of the audit trail shows.
const auditPage = 50

// auditFilters are the trail's filters, as the page's form and its
// next-page link carry them.
var auditFilters = []string{"actor", "action", "project"}

// auditTrail lists the audit trail newest first, by actor, action and
// project, a page after the cursor: who changed tokens, users, pauses and
// notifications, for an owner (admin scope). A filter the trail cannot
// read is answered on the page itself, beside the fields as given.
func (c *Console) auditTrail(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Audit == nil {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	f := map[string]string{"actor": q.Get("actor"), "action": q.Get("action"), "project": q.Get("project"), "after": q.Get("after")}
	projects, err := c.projectChoices(r.Context())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	data := map[string]any{"F": f, "Actions": audit.Actions, "Projects": projects}
	page, err := c.cfg.Audit.AuditList(r.Context(), audit.Query{Actor: f["actor"], Action: audit.Action(f["action"]), Project: f["project"], After: f["after"], Limit: auditPage})
	if err != nil {
		if qlerror.CodeOf(err) != qlerror.Invalid {
			c.fail(w, r, s, err)
			return
		}
		data["Error"] = c.errorText(lang(r), err)
		c.render(w, r, http.StatusBadRequest, "audit", s, data)
		return
	}
	if page.Next != "" {
		v := url.Values{"after": {page.Next}}
		for _, k := range auditFilters {
			if f[k] != "" {
				v.Set(k, f[k])
			}
		}
		data["NextURL"] = "/audit?" + v.Encode()
	}
	data["List"] = page.Records
	c.render(w, r, http.StatusOK, "audit", s, data)
}
