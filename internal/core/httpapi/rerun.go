package httpapi

import (
	"context"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/view"
)

// RerunBody is POST /api/v1/runs/{id}/rerun's body.
type RerunBody struct {
	// RequestID makes the request idempotent: asking again with the same
	// id returns the same Run.
	RequestID string `json:"requestId" doc:"The request's id, which the client chooses (a UUID, say): 1–128 letters, digits, '.', '_' and '-' (request_id_shape). Asking again with it answers the Run the first request made instead of making a second; required here or as the Idempotency-Key header."`
}

// RerunView is POST /api/v1/runs/{id}/rerun's answer: the new Run (Created
// false when an earlier request with the same id made it), or the overlap
// policy's refusal in Skipped, with the earlier Run it refused it beside
// in Unfinished (Waiting: one that already waits, under queue_one).
type RerunView struct {
	RerunOf    string `json:"rerunOf"`
	RunID      string `json:"runId,omitempty"`
	Created    bool   `json:"created"`
	Skipped    string `json:"skipped,omitempty"`
	Unfinished string `json:"unfinished,omitempty"`
	Waiting    bool   `json:"waiting,omitempty"`
	// Cancelled are the unfinished Runs of the trigger its overlap policy
	// (cancel_previous) cancelled to admit the re-run, oldest first.
	Cancelled []string `json:"cancelled,omitempty"`
	// Waits: as run now's answer.
	Waits *view.Waiting `json:"waits,omitempty"`
}

// runRerun admits a new Run repeating a finished one, through the store's
// manual admission, which records the token's name and the remote address
// in the new Run's run.created event, in its transaction. A Run that has
// not finished is refused (409, failed_precondition).
func (a *api) runRerun(ctx context.Context, r *http.Request) (any, error) {
	if _, err := params(r.URL.Query()); err != nil {
		return nil, err
	}
	if a.Manual == nil {
		return nil, errNoManual
	}
	var body RerunBody
	if err := a.decodeBody(r, &body); err != nil {
		return nil, err
	}
	requestID, err := requestIDOf(r, body.RequestID)
	if err != nil {
		return nil, err
	}
	id := r.PathValue("id")
	res, err := a.Manual.RunRerun(ctx, schedule.RerunRequest{RunID: id, RequestID: requestID, Actor: principalOf(ctx).actor()})
	if err != nil {
		return nil, err
	}
	return RerunView{RerunOf: id, RunID: res.RunID, Created: res.Created, Skipped: string(res.Skipped), Unfinished: res.Unfinished, Waiting: res.Waiting,
		Cancelled: res.Cancelled, Waits: a.waitsForAWorker(ctx, res.RunID)}, nil
}
