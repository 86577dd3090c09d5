package console

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// maxBatch is the most triggers one batch form acts on: a page of the
// triggers list, which is all its boxes can select.
const maxBatch = triggersShown

// maxBatchForm caps a batch form's body: the list's filters and a pause
// note as any form, and a trigger id field for each of maxBatch triggers.
const maxBatchForm = maxForm + maxBatch*64

// The batch form's actions, each the value of the button that sends it.
const (
	batchRun     = "run"
	batchPause   = "pause"
	batchResume  = "resume"
	batchEnable  = "enable"
	batchDisable = "disable"
)

// batchOffer is which batch actions the triggers list offers a session:
// each where the single trigger's form is offered, to the same scopes.
type batchOffer struct{ Run, Pause, Enable bool }

// Any reports whether the list offers a batch at all (and so its boxes).
func (b batchOffer) Any() bool { return b.Run || b.Pause || b.Enable }

func (c *Console) batchOffer(s *session) batchOffer {
	operate := s != nil && s.scope.Allows(apitoken.Operate)
	return batchOffer{Run: operate && c.cfg.Manual != nil, Pause: operate && c.cfg.Pauser != nil,
		Enable: s != nil && s.scope.Allows(apitoken.Admin) && c.cfg.Enabler != nil}
}

// batchOutcome is one selected trigger's line in a batch's answer: done,
// with what it did (and the Run a run now made), refused in the
// refusal's own words, or not tried at all (Untried, the request's time
// spent before it), which is no refusal: nothing was asked of it.
type batchOutcome struct {
	TriggerID, Name string
	Done, Untried   bool
	Said, RunID     string
	Refusal         string
	// Note is the note of a trigger a batch resume left paused
	// (leftPaused).
	Note string
}

// batchData is a batch's answer: the action, each trigger's outcome in the
// order selected, their counts and the way back to the list as it was.
type batchData struct {
	Action        string
	Outcomes      []batchOutcome
	Done, Refused int
	Untried       int
	Back          string
	// Noted are the triggers a resume left paused, each paused with a
	// note, which the answer offers to resume once ticked.
	Noted []batchOutcome
	// Filters are the list's filters and page the form carried, which
	// the form resuming Noted carries on.
	Filters map[string]string
}

// batch acts on every trigger the triggers list's form selected, each
// through the single trigger's own path (runNowOne, pauseOne, enableOne),
// so each is checked, refused and audited as it would be alone. One
// refused never stops the others: each gets its own outcome. A run now is
// keyed on the request id the list was rendered with, which names one Run
// per trigger, so a form sent twice makes no second Run.
func (c *Console) batch(w http.ResponseWriter, r *http.Request, s *session) {
	l := lang(r)
	action := r.PostFormValue("do")
	// The scope first, as the single trigger's routes check it before
	// their handler asks whether the server can.
	if (action == batchEnable || action == batchDisable) && !s.scope.Allows(apitoken.Admin) {
		c.failWith(w, r, s, http.StatusForbidden, notAllowed(l, s, apitoken.Admin))
		return
	}
	if err := c.batchAllowed(action); err != nil {
		c.fail(w, r, s, err)
		return
	}
	selected := batchIDs(r)
	switch {
	case len(selected) == 0:
		c.failWith(w, r, s, http.StatusBadRequest, tr(l, "err.batchnone"))
		return
	case len(selected) > maxBatch:
		c.failWith(w, r, s, http.StatusBadRequest, fmt.Sprintf(tr(l, "err.batchmany"), len(selected), maxBatch))
		return
	}
	if action == batchPause || action == batchResume {
		// The note is the form's, not a trigger's: refused once, before
		// any trigger is paused or resumed with it.
		if err := (schedule.PauseRequest{TriggerID: ids.New(), Pause: true, Note: strings.TrimSpace(r.PostFormValue("note"))}).Validate(); err != nil {
			c.fail(w, r, s, err)
			return
		}
	}
	reqID := r.PostFormValue("request")
	if reqID == "" {
		reqID = randomID()
	}
	d := batchData{Action: action, Back: listBack(r), Filters: map[string]string{}}
	for _, k := range triggerFilters {
		d.Filters[k] = r.PostFormValue(k)
	}
	for _, id := range selected {
		o := c.batchOne(r, s, action, id, reqID)
		switch {
		case o.Note != "":
			d.Noted = append(d.Noted, o)
		case o.Done:
			d.Done++
		case o.Untried:
			d.Untried++
		default:
			d.Refused++
		}
		d.Outcomes = append(d.Outcomes, o)
	}
	c.redirectWith(w, r, s, d.Back, flash{Page: "batch", Data: d})
}

// batchAllowed refuses an action this server cannot do, as the single
// trigger's form is refused, or one no button sends.
func (c *Console) batchAllowed(action string) error {
	switch action {
	case batchRun:
		if c.cfg.Manual == nil {
			return cannotRunNow()
		}
	case batchPause, batchResume:
		if c.cfg.Pauser == nil {
			return cannotPause()
		}
	case batchEnable, batchDisable:
		if c.cfg.Enabler == nil {
			return cannotEnable()
		}
	default:
		return qlerror.New(qlerror.Invalid, "the form asks for %q, which is no batch action; press one of the buttons on the triggers list: run now, pause, resume, enable or disable", action).
			Because(refusalNoBatchAction, "action", action)
	}
	return nil
}

// batchIDs are the trigger ids the form selected, each once, in order.
func batchIDs(r *http.Request) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range r.PostForm["id"] {
		if id = strings.TrimSpace(id); id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// batchOne acts on one selected trigger. Its name is read first, for the
// answer's line; a trigger that cannot be read (gone, or not an id) is
// refused in the read's words. Once the request's time is spent, the
// triggers left are said to be untried, not refused.
func (c *Console) batchOne(r *http.Request, s *session, action, id, reqID string) batchOutcome {
	l := lang(r)
	o := batchOutcome{TriggerID: id}
	if r.Context().Err() != nil {
		o.Untried = true
		o.Refusal = fmt.Sprintf(tr(l, "batch.untried"), c.cfg.RequestTimeout)
		return o
	}
	d, err := c.cfg.Detail.TriggerDetail(r.Context(), id, 1)
	if err == nil {
		// A user bound to projects acts on its projects' triggers alone:
		// another's is missing to it, as the trigger's own routes say.
		err = boundOf(r.Context()).reaches(d.ProjectName, schedule.TriggerMissing(id))
	}
	if err == nil {
		o.Name = d.ProjectName + "/" + d.Name
		if leftPaused(r, action, d) {
			o.Note = d.PauseNote
			o.Said = fmt.Sprintf(tr(l, "batch.resume.noted"), d.PauseNote)
			return o
		}
		o.Said, o.RunID, err = c.batchAct(r, s, action, d, reqID)
	}
	if err != nil {
		_, o.Refusal = c.failure(r, err)
		return o
	}
	o.Done = true
	return o
}

// notedParam marks a batch resume sent from the answer's list of
// triggers paused with a note, whose boxes the user ticked one by one.
const notedParam = "noted"

// leftPaused reports whether a batch resume leaves trigger t paused: it
// was paused with a note, which says someone stopped it on purpose ("the
// database is being upgraded, do not run"), and "select all" is no
// answer to that note. Only a trigger ticked on the answer's own list of
// them (notedParam) is resumed.
func leftPaused(r *http.Request, action string, t schedule.TriggerDetail) bool {
	return action == batchResume && t.Paused && t.PauseNote != "" && r.PostFormValue(notedParam) != batchResume
}

// batchAct does action to trigger t and says what it did, with the Run a
// run now made.
func (c *Console) batchAct(r *http.Request, s *session, action string, t schedule.TriggerDetail, reqID string) (string, string, error) {
	l := lang(r)
	switch action {
	case batchRun:
		res, err := c.runNowOne(r, s, t.TriggerID, reqID)
		switch {
		case err != nil:
			return "", "", err
		case res.RunID == "":
			// The overlap policy made none: refused in the single
			// form's words.
			return "", "", qlerror.New(qlerror.FailedPrecondition, tr(l, overlapKey("err.overlap", res.Waiting)), res.Unfinished)
		case !res.Created:
			return tr(l, "batch.run.again"), res.RunID, nil
		}
		return tr(l, "batch.run.made"), res.RunID, nil
	case batchPause, batchResume:
		res, err := c.pauseOne(r, s, t.TriggerID, action == batchPause)
		if err != nil {
			return "", "", err
		}
		if !res.Changed {
			return tr(l, "batch."+action+".same"), "", nil
		}
		if action == batchResume && t.PauseNote != "" {
			return tr(l, "batch.resume.notedasked"), "", nil
		}
		return tr(l, "batch."+action+".done"), "", nil
	default:
		res, err := c.enableOne(r, s, t.TriggerStatus, action == batchEnable)
		if err != nil {
			return "", "", err
		}
		if !res.Changed {
			return tr(l, "batch."+action+".same"), "", nil
		}
		return fmt.Sprintf(tr(l, "batch."+action+".done"), res.Revision), "", nil
	}
}
