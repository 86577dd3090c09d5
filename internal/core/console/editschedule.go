package console

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// originEditSchedule marks a definitions file the Edit schedule form
// wrote: like New task's, it names only what its form showed.
const originEditSchedule = "editschedule"

// editScheduleData is what the Edit schedule form shows: the trigger's
// cron and zone (as sent, or as stored), the errors of the last try, and,
// for a trigger changed since the form was shown, the current trigger
// with every field that was sent beside it (Yours: its title, cron and
// zone).
type editScheduleData struct {
	apply.EditSchedule
	Errors  []string
	Changed bool
	Yours   apply.EditSchedule
	// Elsewhere says why this form cannot show the trigger: the page
	// links to the project's definitions file instead.
	Elsewhere string
}

// editScheduleFields are the Edit schedule form's fields' labels by the
// path of the file's field apply.EditScheduleFile writes each to.
var editScheduleFields = map[string]string{"triggers[0].cron": "nt.cron", "triggers[0].timezone": "nt.timezone", "triggers[0].title": "nt.title"}

func editScheduleLabel(path string) string { return editScheduleFields[path] }

// editScheduleForm shows the Edit schedule form of ?project= and
// ?trigger=: the trigger's current cron and zone.
func (c *Console) editScheduleForm(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Definitions == nil || c.cfg.Export == nil {
		c.failCannotPublish(w, r, s)
		return
	}
	q := r.URL.Query()
	want := apply.EditSchedule{Project: strings.TrimSpace(q.Get("project")), Trigger: strings.TrimSpace(q.Get("trigger"))}
	if want.Project == "" || want.Trigger == "" {
		c.failWith(w, r, s, http.StatusBadRequest, tr(lang(r), "edit.unnamed"))
		return
	}
	e, err := apply.ScheduleToEdit(r.Context(), c.cfg.Export, want.Project, want.Trigger)
	if err != nil {
		if !c.editScheduleRefused(w, r, s, want, err) {
			c.fail(w, r, s, err)
		}
		return
	}
	c.render(w, r, http.StatusOK, "editschedule", s, editScheduleData{EditSchedule: e})
}

// editSchedulePreview writes the form's cron and zone into the trigger's
// file (apply.EditScheduleFile) and previews it, as editTaskPreview does
// a script.
func (c *Console) editSchedulePreview(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Definitions == nil || c.cfg.Export == nil {
		c.failCannotPublish(w, r, s)
		return
	}
	field := func(name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
	rev, _ := strconv.ParseInt(field("revision"), 10, 64)
	d := editScheduleData{EditSchedule: apply.EditSchedule{Project: field("project"), Trigger: field("trigger"), Revision: rev,
		Cron: field("cron"), Timezone: field("timezone"), Task: field("task"), Title: field("title")}}
	if d.Cron == "" || d.Timezone == "" {
		d.Errors = []string{tr(lang(r), "es.required")}
		c.render(w, r, http.StatusBadRequest, "editschedule", s, d)
		return
	}
	text, expect, err := apply.EditScheduleFile(r.Context(), c.cfg.Export, d.EditSchedule)
	if c.editScheduleRefused(w, r, s, d.EditSchedule, err) {
		return
	}
	c.previewFormFile(w, r, s, text, err, editScheduleLabel, nil, formOrigin{form: originEditSchedule, expect: expect}, func(errs []string) {
		d.Errors = errs
		c.render(w, r, http.StatusBadRequest, "editschedule", s, d)
	})
}

// editScheduleRefused answers err as editTaskRefused does for a task.
func (c *Console) editScheduleRefused(w http.ResponseWriter, r *http.Request, s *session, sent apply.EditSchedule, err error) bool {
	switch qlerror.ReasonOf(err) {
	case apply.RefusalChangedSince:
		cur, curErr := apply.ScheduleToEdit(r.Context(), c.cfg.Export, sent.Project, sent.Trigger)
		if curErr != nil {
			return c.editScheduleRefused(w, r, s, sent, curErr)
		}
		c.render(w, r, http.StatusConflict, "editschedule", s, editScheduleData{EditSchedule: cur, Changed: true, Yours: sent,
			Errors: []string{c.formError(lang(r), err)}})
	case apply.RefusalPinsOlderTask:
		c.render(w, r, http.StatusConflict, "editschedule", s, editScheduleData{EditSchedule: apply.EditSchedule{Project: sent.Project, Trigger: sent.Trigger},
			Elsewhere: c.errorText(lang(r), err)})
	case apply.RefusalNoSuchEntry, catalog.RefusalProjectMissing:
		c.fail(w, r, s, err)
	default:
		return false
	}
	return true
}
