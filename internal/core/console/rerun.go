package console

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// canRerun is whether the run page offers Re-run for a Run in state: a
// finished or lost one (schedule.RerunRefusal), on a server whose store
// admits manually.
func (c *Console) canRerun(state run.State) bool {
	return c.cfg.Manual != nil && schedule.RerunRefusal("", state) == nil
}

// rerun admits a new Run repeating a finished one and shows it. The form
// carries the request id its page was rendered with, so submitting it
// twice makes one Run.
func (c *Console) rerun(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.Manual == nil {
		c.fail(w, r, s, qlerror.New(qlerror.FailedPrecondition, "this server's store cannot re-run runs; use `ql runs rerun`").Because(refusalCannotRerun))
		return
	}
	c.admitAndShow(w, r, s, "err.rerunoverlap",
		func(reqID string) (schedule.RunNowResult, error) {
			res, err := c.cfg.Manual.RunRerun(r.Context(), schedule.RerunRequest{RunID: r.PathValue("id"), RequestID: reqID, Actor: s.actor(r)})
			return schedule.RunNowResult(res), err
		})
}

// overlapKey is the message key of an overlap refusal whose Run was
// refused beside one that already waits (queue_one) when waiting, which
// says so rather than that the Run named is unfinished.
func overlapKey(key string, waiting bool) string {
	if waiting {
		return key + ".waiting"
	}
	return key
}

// admitAndShow makes one manual Run with the request id of the form it was
// posted from, so a resubmitted form makes one Run, not two, and shows it.
// refused is the message's key when the overlap policy made none (the one
// reason a manual Run is passed over), which names the unfinished Run it
// was refused beside.
func (c *Console) admitAndShow(w http.ResponseWriter, r *http.Request, s *session, refused string, admit func(reqID string) (schedule.RunNowResult, error)) {
	reqID := r.PostFormValue("request")
	if reqID == "" {
		reqID = randomID()
	}
	res, err := admit(reqID)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	if res.RunID == "" {
		c.failWith(w, r, s, http.StatusConflict, fmt.Sprintf(tr(lang(r), overlapKey(refused, res.Waiting)), res.Unfinished))
		return
	}
	http.Redirect(w, r, "/runs/"+url.PathEscape(res.RunID), http.StatusSeeOther)
}
