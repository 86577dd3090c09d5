package console

import (
	"net/http"
	"slices"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// previewFormFile answers a form's preview with the definitions file it
// wrote (text; err: its writer's refusal): the file's mistakes go back to
// the form through again, which shows them beside what was typed (blank:
// the labels of the required fields left empty); a file without mistakes
// is previewed as the definitions page previews one, with origin so that
// applying it names only what the form showed.
func (c *Console) previewFormFile(w http.ResponseWriter, r *http.Request, s *session, text []byte, err error,
	labelOf func(path string) string, blank []string, origin formOrigin, again func(errs []string)) {
	errs, failed := c.formFile(w, r, s, text, err, labelOf, blank)
	switch {
	case failed:
	case len(errs) > 0:
		again(errs)
	default:
		c.definitionsText(w, r, s, true, string(text), origin)
	}
}

// formFile checks text, the definitions file a form wrote (err: its
// writer's refusal), as its preview will: parsed, then planned, so that
// what the store would refuse (a project archived) is said on the form
// too. Its errors are the form's fields', each started with the label
// labelOf gives the file's field it is at (a line of a file nobody saw
// says nothing); each field of blank (labels of required fields left
// empty) is said to be required, in place of what the file says at it,
// which would read as a mistake of a value nobody typed; failed: the page
// was answered with a failure that is not the form's (the database, the
// page's time).
func (c *Console) formFile(w http.ResponseWriter, r *http.Request, s *session, text []byte, err error, labelOf func(path string) string, blank []string) (errs []string, failed bool) {
	var doc *apply.Document
	if err == nil {
		doc, err = apply.Parse(definitionsFile, text)
	}
	if err == nil {
		svc := *c.cfg.Definitions
		_, err = apply.Plan(r.Context(), svc, svc.Store, doc, ids.New)
	}
	if err != nil && (qlerror.CodeOf(err) == qlerror.Internal || qlerror.Is(err, qlerror.Unavailable) || outOfTime(r, err) ||
		qlerror.ReasonOf(err) == hold.RefusalDatabaseLocked) {
		c.fail(w, r, s, err)
		return nil, true
	}
	if err == nil && len(blank) == 0 {
		return nil, false
	}
	l := lang(r)
	type fieldError struct {
		place int
		msg   string
	}
	var found []fieldError
	for _, label := range blank {
		found = append(found, fieldError{slices.Index(formFieldOrder, label), tr(l, label) + tr(l, "def.sep") + tr(l, "nt.blank")})
	}
	if err != nil {
		list, _ := c.fileErrors(l, err)
		located, _ := apply.Errors(err)
		for i, e := range list {
			// A mistake of no field of the form starts as a sentence, as
			// the form's others do: the error's own English (not a
			// sentence of l's) with a capital.
			at := fieldError{-1, e.Message}
			switch {
			case len(located) == 0:
				at.msg = c.formError(l, err)
			case i < len(located) && e.Message == c.named(located[i].Detail):
				at.msg = sentenceStart(e.Message)
			}
			if i < len(located) {
				label := labelOf(fieldPath(located[i]))
				if slices.Contains(blank, label) {
					continue
				}
				if label != "" {
					at = fieldError{slices.Index(formFieldOrder, label), c.named(fieldSentence(l, tr(l, label), located[i]))}
				}
			}
			found = append(found, at)
		}
	}
	// The file lists a task's fields, then its trigger's; the form shows
	// them in its own order, in which its reader looks for each mistake.
	// A mistake of no field (of the form as a whole) comes first.
	slices.SortStableFunc(found, func(a, b fieldError) int { return a.place - b.place })
	for _, e := range found {
		// A trigger named after its task has the task's name: its
		// mistake is the same sentence as the task name's.
		if !slices.Contains(errs, e.msg) {
			errs = append(errs, e.msg)
		}
	}
	return errs, false
}

// formFieldOrder are the labels of the definitions forms' fields (New
// task, Edit task, Edit schedule) in the order their pages show them:
// each form shows some of them, in this order.
var formFieldOrder = []string{"nt.project", "nt.task", "nt.script", "et.script", "nt.workdir", "nt.cron", "nt.timezone", "nt.timeout", "nt.trigger"}
