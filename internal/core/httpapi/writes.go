package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/validate"
	"github.com/qinglong/qinglong/internal/core/view"
)

// decodeBody reads an optional JSON object body into v: an empty body
// leaves v as it is; unknown fields are refused, so a misspelt one is an
// error rather than silently ignored. Anything but one JSON object (null,
// an array, a form) is refused, and a content type other than JSON is
// refused before the body is read, so a client that sent the wrong thing
// learns it rather than having its fields ignored. Keys match the fields
// exactly: encoding/json alone would take "RequestId" for requestId and
// the last of a key given twice, hiding a client's mistake. A UTF-8
// byte-order mark before the object is skipped, as RFC 8259 lets a parser
// do (Windows tools write one).
func (a *api) decodeBody(r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return qlerror.New(qlerror.Invalid, "the request body is %q; send a JSON object with Content-Type: application/json", clip(ct)).
				Because(RefusalBodyContentType, "value", clip(ct))
		}
	}
	body := bufio.NewReader(r.Body)
	if b, err := body.Peek(len(utf8BOM)); err == nil && bytes.Equal(b, utf8BOM) {
		_, _ = body.Discard(len(utf8BOM)) // peeked: the bytes are there
	}
	dec := json.NewDecoder(body)
	var raw json.RawMessage
	err := dec.Decode(&raw)
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		if e := tooLarge(err, a.guard.limits.MaxBody); e != err {
			return e
		}
		return bodyError(err)
	}
	if dec.More() {
		return qlerror.New(qlerror.Invalid, "the request body holds more than one JSON value; send one object").Because(RefusalBodyManyValues)
	}
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return qlerror.New(qlerror.Invalid, "the request body is %s, not a JSON object; send one object, e.g. {}", jsonKind(t)).
			Because(RefusalBodyNotObject, "value", jsonKind(t))
	}
	if err := checkKeys(raw, jsonFields(v)); err != nil {
		return err
	}
	strict := json.NewDecoder(bytes.NewReader(raw))
	strict.DisallowUnknownFields()
	if err := strict.Decode(v); err != nil {
		return bodyError(err)
	}
	return nil
}

// utf8BOM is the byte-order mark some editors and Windows tools put before
// UTF-8 text.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// checkKeys refuses a key of the object raw (valid JSON) that is not one
// of fields exactly, one in another case included, and a key given twice.
func checkKeys(raw json.RawMessage, fields []string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return bodyError(err)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return bodyError(err)
		}
		key, _ := tok.(string)
		if !slices.Contains(fields, key) {
			return unknownField(key, fields)
		}
		if seen[key] {
			return qlerror.New(qlerror.Invalid, "the request body gives the field %q twice; give it once", key).Because(RefusalBodyFieldTwice, "field", key)
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return bodyError(err)
		}
	}
	return nil
}

// unknownField refuses key, naming the fields the endpoint takes, and the
// one it is when only its case differs: names are case-sensitive.
func unknownField(key string, fields []string) error {
	takes := "no field: send {} or no body"
	if len(fields) > 0 {
		takes = strings.Join(fields, ", ")
	}
	for _, f := range fields {
		if strings.EqualFold(f, key) {
			return qlerror.New(qlerror.Invalid, "the request body has the field %q, which this endpoint does not take: field names are case-sensitive; write it %q", clip(key), f).
				Because(RefusalBodyUnknownField, "field", clip(key), "allowed", takes)
		}
	}
	return qlerror.New(qlerror.Invalid, "the request body has the field %q, which this endpoint does not take; it takes %s", clip(key), takes).
		Because(RefusalBodyUnknownField, "field", clip(key), "allowed", takes)
}

// jsonFields names the fields of the JSON object v (a pointer to a
// struct) decodes from, in the struct's order: a misspelt field is
// answered with the right spellings.
func jsonFields(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	return names
}

// bodyError says what is wrong with a body in the request's own terms
// (JSON types and field names), never the server's Go types.
func bodyError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "" && wholeOutOfRange(typeErr):
		lo, hi := bodyRange(typeErr.Field)
		n := strings.TrimPrefix(typeErr.Value, "number ")
		return qlerror.New(qlerror.Invalid, "%s: %s is out of range: it takes %d to %d", typeErr.Field, clip(n), lo, hi).
			Because(validate.RefusalOutOfRange, "field", typeErr.Field, "value", clip(n), "min", lo, "max", hi)
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return qlerror.New(qlerror.Invalid, "the field %q is a JSON %s; it must be %s", typeErr.Field, typeErr.Value, jsonTypeOf(typeErr.Type.Kind())).
			Because(RefusalBodyFieldType, "field", typeErr.Field, "value", typeErr.Value, "allowed", jsonTypeOf(typeErr.Type.Kind()))
	case errors.As(err, &syntaxErr):
		return qlerror.New(qlerror.Invalid, "the request body is not valid JSON at byte %d (%v); send one JSON object", syntaxErr.Offset, err).
			Because(RefusalBodyNotJSON, "offset", syntaxErr.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return qlerror.New(qlerror.Invalid, "the request body ends inside its JSON value; send one whole JSON object").Because(RefusalBodyTruncated)
	}
	return qlerror.New(qlerror.Invalid, "the request body is not the JSON object this endpoint takes: %v", err).Because(RefusalBodyNotJSON)
}

// jsonKind names the JSON value a body starts with.
func jsonKind(t []byte) string {
	switch {
	case len(t) == 0:
		return "empty"
	case t[0] == '[':
		return "an array"
	case t[0] == '"':
		return "a string"
	case t[0] == 'n':
		return "null"
	case t[0] == 't' || t[0] == 'f':
		return "a boolean"
	}
	return "a number"
}

// jsonTypeOf names the JSON type a field of Go kind k takes.
func jsonTypeOf(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

type pauseBody struct {
	Note string `json:"note" doc:"Optional: why the trigger or project is paused or resumed, kept with the pause and in the audit trail; one line of plain text, at most 1000 characters, without control or text-direction characters (pause_note_too_long, pause_note_not_text); empty or left out for none."`
}

// triggerPause pauses or resumes a trigger ({"note": …} optional, for a
// resume too: why it runs again). The
// store writes the audit record — the token's name and the remote address
// as the actor, the note, the store's time — in the transaction of the
// change.
func (a *api) triggerPause(pause bool) func(context.Context, *http.Request) (any, error) {
	return func(ctx context.Context, r *http.Request) (any, error) {
		if _, err := params(r.URL.Query()); err != nil {
			return nil, err
		}
		if a.Pauser == nil {
			return nil, qlerror.New(qlerror.FailedPrecondition, "this server cannot pause or resume triggers over the API; use `ql triggers pause|resume` (on the cluster with the admin role)").Because(RefusalNotOverTheAPI)
		}
		var body pauseBody
		if err := a.decodeBody(r, &body); err != nil {
			return nil, err
		}
		id := r.PathValue("id")
		res, err := a.Pauser.TriggerPause(ctx, schedule.PauseRequest{TriggerID: id, Pause: pause, Note: body.Note, Actor: principalOf(ctx).actor()})
		if err != nil {
			return nil, err
		}
		if res.Queued, err = a.queuedAtPause(ctx, pause, run.ListParams{TriggerID: id}); err != nil {
			return nil, err
		}
		return view.NewTriggerPause(id, res), nil
	}
}

// runCancel cancels a Run: one that has not started at once, a running one
// by asking its executor to stop it. The store records the token's name
// and the remote address in the cancel's event, in its transaction. The
// answer says what this request did (view.NewCancelEffect): a Run found
// cancelled was cancelled by this request or had ended so before, which
// its state alone does not tell.
func (a *api) runCancel(ctx context.Context, r *http.Request) (any, error) {
	if _, err := params(r.URL.Query()); err != nil {
		return nil, err
	}
	if a.Cancel == nil {
		return nil, qlerror.New(qlerror.FailedPrecondition, "this server cannot cancel runs over the API; use `ql runs cancel`").Because(RefusalNotOverTheAPI)
	}
	var body struct{}
	if err := a.decodeBody(r, &body); err != nil {
		return nil, err
	}
	got, eff, err := a.Cancel(ctx, r.PathValue("id"), principalOf(ctx).actor())
	if err != nil {
		return nil, err
	}
	return view.NewRunCancel(got, eff), nil
}

// runNowBody is POST /api/v1/triggers/{id}/run's body.
type runNowBody struct {
	// RequestID makes the request idempotent: asking again with the same
	// id returns the same Run.
	RequestID string `json:"requestId" doc:"The request's id, which the client chooses (a UUID, say): 1–128 letters, digits, '.', '_' and '-' (request_id_shape). Asking again with it answers the Run the first request made instead of making a second; required here or as the Idempotency-Key header."`
	// Force admits the Run even where the trigger's overlap policy would
	// refuse it or cancel the unfinished ones first.
	Force bool `json:"force" doc:"True to admit the Run whatever the trigger's overlap policy says: no skip beside an unfinished Run, no wait under queue_one, no cancel under cancel_previous; false or left out applies the policy. A request asked again with its requestId must ask the same force."`
}

type runNowView struct {
	RunID   string `json:"runId,omitempty" doc:"The id of the Run the request made, or that an earlier request with the same request id made; absent when the overlap policy refused it (skipped)."`
	Created bool   `json:"created" doc:"True when this request made the Run, false when an earlier one with the same request id did (or none was made)."`
	Skipped string `json:"skipped,omitempty" doc:"Why no Run was made: overlap, the trigger's overlap policy refused it beside an unfinished Run; absent when a Run was made."`
	// Unfinished is the earlier Run the overlap policy refused this one
	// beside, with skipped; Waiting says it is one that already waits
	// (queue_one), not an unfinished one.
	Unfinished string `json:"unfinished,omitempty" doc:"With skipped, the id of the earlier Run the policy refused this one beside: the oldest unfinished one, or under queue_one the one already waiting; absent otherwise."`
	Waiting    bool   `json:"waiting,omitempty" doc:"With skipped, true when unfinished is a Run that already waits (queue_one); absent otherwise."`
	// Cancelled are the unfinished Runs the trigger's overlap policy
	// cancel_previous cancelled to admit this one (the running ones asked
	// to stop; this Run starts once they have), oldest first.
	Cancelled []string `json:"cancelled,omitempty" doc:"The ids of the unfinished Runs the trigger's overlap policy cancel_previous cancelled to admit this one, oldest first (the running ones asked to stop; this Run starts once they have); absent when none."`
	// Waits says why the Run waits for a worker (none connected, all
	// draining, none with its placement's labels), as `ql runs show`'s
	// waiting does; absent when a worker can take it.
	Waits *view.Waiting `json:"waits,omitempty" doc:"Cluster only: why the new Run waits for a worker (none connected, all draining, none with its placement's labels), as a Run's waiting says; absent when a worker can take it, and always on a standalone or edge server."`
}

// triggerRunNow admits one Run of a trigger now, through the store's
// manual admission (which writes its audit in the admission's transaction).
func (a *api) triggerRunNow(ctx context.Context, r *http.Request) (any, error) {
	if _, err := params(r.URL.Query()); err != nil {
		return nil, err
	}
	if a.Manual == nil {
		return nil, errNoManual
	}
	var body runNowBody
	if err := a.decodeBody(r, &body); err != nil {
		return nil, err
	}
	requestID, err := requestIDOf(r, body.RequestID)
	if err != nil {
		return nil, err
	}
	res, err := a.Manual.TriggerRunNow(ctx, schedule.RunNowRequest{TriggerID: r.PathValue("id"), RequestID: requestID, Force: body.Force, Actor: principalOf(ctx).actor()})
	if err != nil {
		return nil, a.pinRefusal(ctx, r.PathValue("id"), err)
	}
	return runNowView{RunID: res.RunID, Created: res.Created, Skipped: string(res.Skipped), Unfinished: res.Unfinished, Waiting: res.Waiting,
		Cancelled: res.Cancelled, Waits: a.waitsForAWorker(ctx, res.RunID)}, nil
}

// waitsForAWorker is why Run id, just queued, waits for a worker; nil when
// it does not, or when it cannot be read: the Run is queued either way, and
// the answer must not fail for a note.
func (a *api) waitsForAWorker(ctx context.Context, id string) *view.Waiting {
	if id == "" || a.Runs == nil {
		return nil
	}
	d, err := a.Runs.RunGet(ctx, id)
	if err != nil || !d.Waiting.ForWantOfAWorker() {
		return nil
	}
	return view.NewWaiting(d.Waiting)
}

// backfillBody is POST /api/v1/triggers/{id}/backfill's body: the
// occurrences in [fromMs, toMs] (epoch milliseconds), at most max of them
// (schedule.DefaultBackfillMax when max is left out). DryRun counts what
// the backfill would do, in its own transaction rolled back, and writes
// nothing.
type backfillBody struct {
	// FromMs and ToMs are nil when the body leaves them out, which is
	// refused: 0 is an instant (1970-01-01T00:00:00Z), and any instant
	// the CLI's --from and --to take on the database, before 1970
	// included, is taken here too.
	FromMs *int64 `json:"fromMs" doc:"Required: the window's first instant, Unix time in milliseconds: the occurrences scheduled at or after it are admitted. Not in the future (backfill_in_future), and within year 0000 to 9999."`
	ToMs   *int64 `json:"toMs" doc:"Required: the window's last instant, Unix time in milliseconds: the occurrences scheduled at or before it are admitted. At or after fromMs (backfill_reversed) and not in the future (backfill_in_future)."`
	// Max is nil when the body leaves it out: an explicit 0 is refused,
	// as the CLI refuses --max 0, rather than read as the default.
	Max    *int `json:"max" doc:"Optional: the most occurrences of the window the backfill takes, from 1 to 100000 (backfill_cap); left out, 1000. A window holding more is cut there, and the answer's truncated says so."`
	DryRun bool `json:"dryRun" doc:"True to count what the backfill would admit and write nothing; false or left out admits the Runs."`
}

// apiBackfillNames are the backfill body's fields, as its refusals name them.
var apiBackfillNames = schedule.BackfillNames{From: "fromMs", To: "toMs", Max: "max"}

// triggerBackfill admits a trigger's occurrences in a past range through
// the store's manual admission, or counts them in a dry run.
func (a *api) triggerBackfill(ctx context.Context, r *http.Request) (any, error) {
	if _, err := params(r.URL.Query()); err != nil {
		return nil, err
	}
	if a.Manual == nil {
		return nil, errNoManual
	}
	var body backfillBody
	if err := a.decodeBody(r, &body); err != nil {
		return nil, err
	}
	switch {
	case body.FromMs == nil:
		return nil, qlerror.New(qlerror.Invalid, `"fromMs" is required: the first instant of the range of occurrences to admit, in epoch milliseconds`).Because(RefusalBodyFieldMissing, "field", "fromMs")
	case body.ToMs == nil:
		return nil, qlerror.New(qlerror.Invalid, `"toMs" is required: the last instant of the range of occurrences to admit, in epoch milliseconds`).Because(RefusalBodyFieldMissing, "field", "toMs")
	case checkInstant("fromMs", *body.FromMs) != nil:
		return nil, checkInstant("fromMs", *body.FromMs)
	case checkInstant("toMs", *body.ToMs) != nil:
		return nil, checkInstant("toMs", *body.ToMs)
	case *body.ToMs < *body.FromMs:
		return nil, qlerror.New(qlerror.Invalid, `"toMs" (%d) is before "fromMs" (%d): give the range of occurrences to admit as fromMs ≤ toMs, in epoch milliseconds`, *body.ToMs, *body.FromMs).
			Because(schedule.RefusalBackfillReversed)
	case body.Max != nil && (*body.Max < 1 || *body.Max > schedule.MaxBackfill):
		return nil, qlerror.New(qlerror.Invalid, `"max" %d is outside 1–%d: give the most occurrences to consider in that range, or leave it out for %d`,
			*body.Max, schedule.MaxBackfill, schedule.DefaultBackfillMax).Because(schedule.RefusalBackfillCap)
	}
	req := schedule.BackfillRequest{TriggerID: r.PathValue("id"), FromMs: *body.FromMs, ToMs: *body.ToMs, DryRun: body.DryRun, Actor: principalOf(ctx).actor(),
		Names: apiBackfillNames}
	if body.Max != nil {
		req.Max = *body.Max
	}
	res, err := a.Manual.TriggerBackfill(ctx, req)
	if err != nil {
		return nil, a.pinRefusal(ctx, req.TriggerID, err)
	}
	return view.NewBackfill(body.DryRun, res), nil
}

// errNoRequestID refuses a run now or a re-run without its request id.
var errNoRequestID = qlerror.New(qlerror.Invalid, `give "requestId" (a unique id you choose, e.g. a UUID), in the body or as the Idempotency-Key header: asking again with it returns the same Run instead of a second one`).
	Because(RefusalBodyFieldMissing, "field", "requestId")

// requestIDOf is the request id of a run now or a re-run: the body's
// requestId, or else the Idempotency-Key header many HTTP clients send to
// make a retried POST safe, its quotes (a structured field's string)
// taken off. A client sending the header alone must get the idempotency
// it asked for, never a refusal it may retry into a second Run, nor the
// header silently ignored; one naming two different ids is refused rather
// than one of them picked.
func requestIDOf(r *http.Request, body string) (string, error) {
	key := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	if len(key) >= 2 && key[0] == '"' && key[len(key)-1] == '"' {
		key = key[1 : len(key)-1]
	}
	switch {
	case body == "" && key == "":
		return "", errNoRequestID
	case body == "":
		return key, nil
	case key != "" && key != body:
		return "", qlerror.New(qlerror.Invalid, "the Idempotency-Key header %q and the body's requestId %q name different requests; send one of them, or the same id in both", clip(key), clip(body)).
			Because(RefusalIdempotencyKeyMismatch, "idempotencyKey", clip(key), "requestId", clip(body))
	}
	return body, nil
}

var errNoManual = qlerror.New(qlerror.FailedPrecondition, "this server's store cannot run triggers now, re-run runs or backfill triggers over the API; "+
	"use `ql triggers run`, `ql runs rerun` or `ql triggers backfill` where its database is").Because(RefusalNotOverTheAPI)
