package console

import (
	"net/http"
	"net/url"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// enable enables or disables a trigger: a new revision with only
// `enabled` flipped (catalog.Service.TriggerSetEnabled), audited with the
// session's token and address. It answers with the page the form was on:
// the triggers list when it says so, filtered and paged as the form
// carries it (triggerFilters), else the trigger's page.
func (c *Console) enable(on bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, s *session) {
		if c.cfg.Enabler == nil {
			c.fail(w, r, s, qlerror.New(qlerror.FailedPrecondition, "this server cannot enable or disable triggers; use `ql triggers enable|disable` (on the cluster with the admin role)").Because(refusalCannotEnable))
			return
		}
		id := r.PathValue("id")
		d, err := c.cfg.Detail.TriggerDetail(r.Context(), id, 1)
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		if _, err := c.cfg.Enabler.TriggerSetEnabled(r.Context(), catalog.EnableRequest{ProjectID: d.ProjectID, Name: d.Name, Enabled: on, Actor: s.actor(r)}); err != nil {
			c.fail(w, r, s, err)
			return
		}
		back := "/triggers/" + url.PathEscape(id)
		if r.PostFormValue("back") == "list" {
			back = "/triggers"
			v := url.Values{}
			for _, k := range triggerFilters {
				if x := r.PostFormValue(k); x != "" {
					v.Set(k, x)
				}
			}
			if len(v) > 0 {
				back += "?" + v.Encode()
			}
		}
		http.Redirect(w, r, back, http.StatusSeeOther)
	}
}
