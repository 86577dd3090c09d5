package console

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// maxRunsCancel is the most Runs one cancel form acts on: a page of the
// Runs list, which is all its boxes can select.
const maxRunsCancel = runsPage

// runsFilters are the Runs list's filters and cursor, which its cancel
// form carries back to it.
var runsFilters = []string{"project", "trigger", "state", "from", "to", "worker", "after"}

// cancelTally counts what a cancel of selected Runs did to them.
type cancelTally struct {
	// Cancelled ended cancelled at once; Asked have their commands
	// being stopped, and end cancelled once they have; Already had ended
	// before the cancel reached them; Refused were refused (Refusal says
	// the first refusal); Untried were not asked, the request's time
	// spent before them.
	Cancelled, Asked, Already, Refused, Untried int
	Refusal                                     string
}

// cannotCancel refuses a cancel on a server that cannot cancel Runs.
func cannotCancel() error {
	return qlerror.New(qlerror.FailedPrecondition, "this server cannot cancel runs; use `ql runs cancel`").Because(refusalCannotCancel)
}

// cancelRuns cancels every Run the Runs list's form selected, each as the
// Run's own Cancel button does (checked, refused and audited as it would
// be alone), and answers with the list as it was, above it how many were
// cancelled, asked to stop, had already ended or were refused. Only the
// ticked Runs are touched, never what the filter matches past the page
// shown: a page's boxes are all a user saw.
func (c *Console) cancelRuns(w http.ResponseWriter, r *http.Request, s *session) {
	l := lang(r)
	if c.cfg.Cancel == nil {
		c.fail(w, r, s, cannotCancel())
		return
	}
	selected := batchIDs(r)
	switch {
	case len(selected) == 0:
		c.failWith(w, r, s, http.StatusBadRequest, tr(l, "err.runsnone"))
		return
	case len(selected) > maxRunsCancel:
		c.failWith(w, r, s, http.StatusBadRequest, fmt.Sprintf(tr(l, "err.runsmany"), len(selected), maxRunsCancel))
		return
	}
	var n cancelTally
	for _, id := range selected {
		if r.Context().Err() != nil {
			n.Untried++
			continue
		}
		// A user bound to projects cancels its projects' Runs alone.
		err := c.runInScope(r.Context(), id)
		var ran run.Run
		var effect run.CancelEffect
		if err == nil {
			ran, effect, err = c.cfg.Cancel(r.Context(), id, s.actor(r))
		}
		switch {
		case err != nil:
			n.Refused++
			if n.Refusal == "" {
				_, n.Refusal = c.failure(r, err)
			}
		case effect.Finished || effect.ClosedLost:
			n.Cancelled++
		case ran.State.Finished():
			n.Already++
		default:
			n.Asked++
		}
	}
	c.redirectWith(w, r, s, runsBack(r), flash{Message: cancelSummary(l, len(selected), n)})
}

// cancelSummary says in l what a cancel of selected Runs did: always how
// many were cancelled and how many had already ended, and the rest when
// there were any.
func cancelSummary(l string, selected int, n cancelTally) string {
	parts := []string{fmt.Sprintf(tr(l, "runs.cancel.cancelled"), n.Cancelled)}
	if n.Asked > 0 {
		parts = append(parts, fmt.Sprintf(tr(l, "runs.cancel.asked"), n.Asked))
	}
	parts = append(parts, fmt.Sprintf(tr(l, "runs.cancel.already"), n.Already))
	if n.Refused > 0 {
		parts = append(parts, fmt.Sprintf(tr(l, "runs.cancel.refused"), n.Refused, n.Refusal))
	}
	if n.Untried > 0 {
		parts = append(parts, fmt.Sprintf(tr(l, "runs.cancel.untried"), n.Untried))
	}
	return fmt.Sprintf(tr(l, "runs.cancel.summary"), selected, strings.Join(parts, tr(l, "runs.cancel.sep")))
}

// runsBack is the Runs list with the filters and cursor the form carried.
func runsBack(r *http.Request) string {
	v := url.Values{}
	for _, k := range runsFilters {
		if x := r.PostFormValue(k); x != "" {
			v.Set(k, x)
		}
	}
	if len(v) == 0 {
		return "/runs"
	}
	return "/runs?" + v.Encode()
}
