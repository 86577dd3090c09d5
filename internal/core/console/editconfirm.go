package console

import (
	"errors"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// editRefused answers on its form err, the refusal of doc, a file an
// edit form (form) wrote, at its preview or at its confirmation, and says
// whether it did: an entry published by someone else since the file was
// written (the apply checks it in its own transaction), gone, or no
// longer one the form can show. Any other refusal is the definitions
// page's to show.
func (c *Console) editRefused(w http.ResponseWriter, r *http.Request, s *session, form string, doc *apply.Document, err error) bool {
	if err == nil || doc == nil {
		return false
	}
	// The form says the entry's refusal itself, not the file's words
	// around it (definitions.yaml: nothing was applied: …), of a file
	// its user never saw.
	err = reasoned(err)
	switch {
	case form == originEditTask && len(doc.Tasks) == 1:
		return c.editTaskRefused(w, r, s, doc.Tasks[0].Edited(doc.Project), err)
	case form == originEditSchedule && len(doc.Triggers) == 1:
		return c.editScheduleRefused(w, r, s, doc.Triggers[0].Edited(doc.Project), err)
	case form == originProjectEnv && len(doc.Tasks) == 0:
		return c.projectEnvRefused(w, r, s, doc.Project, apply.EnvRows(doc.Env), err)
	}
	return false
}

// reasoned is the error of err's chain that carries its reason, err when
// none does.
func reasoned(err error) error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if q, ok := e.(*qlerror.Error); ok && q.Reason != "" {
			return q
		}
	}
	return err
}
