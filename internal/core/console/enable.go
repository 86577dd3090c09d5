package console

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// enable enables or disables a trigger: a new revision with only
// `enabled` flipped (catalog.Service.TriggerSetEnabled), audited with the
// session's token and address. It answers with the page the form was on:
// the triggers list when it says so, filtered and paged as the form
// carries it with what was done (listDone), else the trigger's page.
func (c *Console) enable(on bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, s *session) {
		if c.cfg.Enabler == nil {
			c.fail(w, r, s, cannotEnable())
			return
		}
		id := r.PathValue("id")
		d, err := c.cfg.Detail.TriggerDetail(r.Context(), id, 1)
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		if _, err := c.enableOne(r, s, d.TriggerStatus, on); err != nil {
			c.fail(w, r, s, err)
			return
		}
		action := map[bool]string{true: "enable", false: "disable"}[on]
		if r.PostFormValue("back") == "list" {
			http.Redirect(w, r, listDone(r, action, id), http.StatusSeeOther)
			return
		}
		c.redirectWith(w, r, s, "/triggers/"+url.PathEscape(id), flash{Message: fmt.Sprintf(tr(lang(r), "trig.done."+action), d.ProjectName+"/"+d.Name)})
	}
}

// cannotEnable refuses an enable or disable on a server whose database
// role may not publish.
func cannotEnable() error {
	return qlerror.New(qlerror.FailedPrecondition, "this server cannot enable or disable triggers; use `ql triggers enable|disable` (on the cluster with the admin role)").Because(refusalCannotEnable)
}

// enableOne enables or disables trigger t, audited with the session's
// actor: the trigger page's form, the list's and the list's batch all
// act through it.
func (c *Console) enableOne(r *http.Request, s *session, t schedule.TriggerStatus, on bool) (catalog.EnableResult, error) {
	res, err := c.cfg.Enabler.TriggerSetEnabled(r.Context(), catalog.EnableRequest{ProjectID: t.ProjectID, Name: t.Name, Enabled: on, Actor: s.actor(r)})
	return res, archivedRefusal(err, t.Name, on)
}

// archivedRefusal is err, when it refuses an enable or disable of trigger
// name because its project is archived, under a reason of its own: the
// store's reason is every publish's to an archived project, whose
// translation speaks of publishing, not of what the form asked. Its
// English is the catalog's, which says it already. Any other error is
// returned as it is.
func archivedRefusal(err error, name string, on bool) error {
	if qlerror.ReasonOf(err) != catalog.RefusalProjectArchived {
		return err
	}
	reason := refusalDisableArchived
	if on {
		reason = refusalEnableArchived
	}
	return qlerror.New(qlerror.CodeOf(err), "%s", err.Error()).Because(reason, "trigger", name)
}

// listBack is the triggers list as the form posted from it carries its
// filters and page (triggerFilters).
func listBack(r *http.Request) string {
	v := url.Values{}
	for _, k := range triggerFilters {
		if x := r.PostFormValue(k); x != "" {
			v.Set(k, x)
		}
	}
	if len(v) == 0 {
		return "/triggers"
	}
	return "/triggers?" + v.Encode()
}

// listDone is listBack saying that action (pause, resume, enable,
// disable) was done to trigger id: a row's button otherwise answers with
// the list alone, which reads as though nothing happened.
func listDone(r *http.Request, action, id string) string {
	back, sep := listBack(r), "?"
	if strings.Contains(back, "?") {
		sep = "&"
	}
	return back + sep + url.Values{"done": {action}, "done_id": {id}}.Encode()
}
