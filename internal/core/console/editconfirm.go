package console

import (
	"net/http"

	"github.com/qinglong/qinglong/internal/core/apply"
)

// editChangedSince checks, as an edit form's preview is confirmed, that
// the entry the form showed is still at the revision it showed, and when
// it is not answers with the form showing the entry as it is now and the
// previewed change beside it, and says it did: between the preview and
// its confirmation another user may publish the entry, whose change the
// previewed file would undo. A file that does not read as the form's is
// left to the apply, which says what is wrong with it.
func (c *Console) editChangedSince(w http.ResponseWriter, r *http.Request, s *session, o formOrigin, text string) bool {
	doc, err := apply.Parse(definitionsFile, []byte(text))
	if err != nil {
		return false
	}
	switch {
	case o.form == originEditTask && len(doc.Tasks) == 1:
		t := doc.Tasks[0].Spec
		err = apply.CheckRevision(r.Context(), c.cfg.Export, doc.Project, "task", t.Name, o.revision)
		return err != nil && c.editTaskRefused(w, r, s, apply.EditTask{Project: doc.Project, Task: t.Name, Script: t.Command.Script}, err)
	case o.form == originEditSchedule && len(doc.Triggers) == 1:
		t := doc.Triggers[0].Spec
		err = apply.CheckRevision(r.Context(), c.cfg.Export, doc.Project, "trigger", t.Name, o.revision)
		return err != nil && c.editScheduleRefused(w, r, s, apply.EditSchedule{Project: doc.Project, Trigger: t.Name, Cron: t.Cron.Expression, Timezone: t.Cron.Timezone}, err)
	}
	return false
}
