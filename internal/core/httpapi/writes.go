package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// decodeBody reads an optional JSON object body into v: an empty body
// leaves v as it is; unknown fields are refused, so a misspelt one is an
// error rather than silently ignored.
func (a *api) decodeBody(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		if e := tooLarge(err, a.guard.limits.MaxBody); e != err {
			return e
		}
		return qlerror.New(qlerror.Invalid, "the request body is not the JSON object this endpoint takes: %v", err)
	}
	if dec.More() {
		return qlerror.New(qlerror.Invalid, "the request body holds more than one JSON value; send one object")
	}
	return nil
}

type pauseBody struct {
	Note string `json:"note"`
}

// pauseView is a trigger's pause state after a pause or resume.
type pauseView struct {
	TriggerID string `json:"triggerId"`
	Changed   bool   `json:"changed"`
	Paused    bool   `json:"paused"`
	Note      string `json:"note,omitempty"`
	AtMs      int64  `json:"atMs"`
}

// triggerPause pauses or resumes a trigger ({"note": …} optional). The
// store writes the audit record — the token's name and the remote address
// as the actor, the note, the store's time — in the transaction of the
// change.
func (a *api) triggerPause(pause bool) func(context.Context, *http.Request) (any, error) {
	return func(ctx context.Context, r *http.Request) (any, error) {
		if _, err := params(r.URL.Query()); err != nil {
			return nil, err
		}
		if a.Pauser == nil {
			return nil, qlerror.New(qlerror.FailedPrecondition, "this server cannot pause or resume triggers over the API; use `ql triggers pause|resume` (on the cluster with the admin role)")
		}
		var body pauseBody
		if err := a.decodeBody(r, &body); err != nil {
			return nil, err
		}
		if !pause && body.Note != "" {
			return nil, qlerror.New(qlerror.Invalid, "a resume takes no note")
		}
		id := r.PathValue("id")
		res, err := a.Pauser.TriggerPause(ctx, schedule.PauseRequest{TriggerID: id, Pause: pause, Note: body.Note, Actor: principalOf(ctx).actor()})
		if err != nil {
			return nil, err
		}
		return pauseView{TriggerID: id, Changed: res.Changed, Paused: res.Paused, Note: res.Note, AtMs: res.AtMs}, nil
	}
}
