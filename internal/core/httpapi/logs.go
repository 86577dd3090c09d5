package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/view"
)

// MaxLogAnswer bounds the output one answer of GET /api/v1/runs/{id}/log
// carries: a client asks again from the answer's view.HeaderLogOffset for
// the rest, so no answer holds a whole log cap (up to 1 GiB on the
// cluster) in the server's memory, or reads it from the database.
const MaxLogAnswer = 1 << 20

// errNoLogs answers the log route on a server that was given no way to
// read logs.
var errNoLogs = qlerror.New(qlerror.FailedPrecondition, "this server was given no way to read the runs' output; read it with `ql runs logs` where its database is").Because(RefusalNotOverTheAPI)

// RefusalLogOffsetPastEnd is the reason of the log route's 416: the
// offset asked is past the end of what the log holds (an offset kept from
// another attempt, or from a log since cut or replaced). An empty answer
// saying the log is complete would tell a follower it has everything
// while it loses the bytes before its offset; view.HeaderLogLength says
// where the log ends.
const RefusalLogOffsetPastEnd qlerror.Reason = "log_offset_past_end"

// RefusalLogRemoved is the reason of the log route's 404 for an attempt
// whose log is gone: removed by log retention, or from the server's disk
// while or after its command ran. A follower says so rather than wait for
// output that never comes.
const RefusalLogRemoved qlerror.Reason = "log_removed"

// logPastEnd is the log route's refusal of an offset past the log's end,
// which carries the log's length in headers besides the API's error.
type logPastEnd struct {
	runID          string
	number, offset int64
	length         int64
}

func (p logPastEnd) write(w http.ResponseWriter) {
	n := strconv.FormatInt(p.length, 10)
	w.Header().Set(view.HeaderLogLength, n)
	w.Header().Set("Content-Range", "bytes */"+n)
	writeJSON(w, http.StatusRequestedRangeNotSatisfiable, errorBody{Error: errorDetail{Code: qlerror.Invalid, Reason: RefusalLogOffsetPastEnd,
		Message: fmt.Sprintf("offset %d is past the end of the log of attempt %d of run %s, which holds %d bytes (%s): "+
			"ask from an offset this attempt's answers gave, or from 0 for its whole log", p.offset, p.number, p.runID, p.length, view.HeaderLogLength)}})
}

// logAnswer is the log route's answer: the bytes, and the headers that
// say what they are.
type logAnswer struct {
	body    []byte
	headers map[string]string
}

func (a logAnswer) write(w http.ResponseWriter) {
	h := w.Header()
	// The output is the command's, in no known encoding: never to be
	// rendered or sniffed as a page.
	h.Set("Content-Type", "application/octet-stream")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(a.body)))
	for k, v := range a.headers {
		h.Set(k, v)
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(a.body) // the client went away; nothing to do
}

// runLog answers an attempt's captured output from ?offset= on (0 when
// left out), at most MaxLogAnswer bytes, of attempt ?attempt=N (the
// latest when left out). The run is read before its log, so an answer
// that says the attempt ended carries every byte it wrote up to its end
// of the log. An attempt that has not started answers no bytes; an offset
// past the log's end is refused (logPastEnd).
func (a *api) runLog(ctx context.Context, r *http.Request) (any, error) {
	q, err := params(r.URL.Query(), "attempt", "offset", "tail")
	if err != nil {
		return nil, err
	}
	number, err := wholeParam(q, "attempt", 1, "an attempt number: one GET /api/v1/runs/{id} lists (1 is the first), or leave it out for the latest")
	if err != nil {
		return nil, err
	}
	offset, err := wholeParam(q, "offset", 0, "a byte offset, 0 or more: the Ql-Log-Offset of the previous answer, or 0 for the start")
	if err != nil {
		return nil, err
	}
	tail, err := tailParam(q)
	if err != nil {
		return nil, err
	}
	if a.ReadLog == nil {
		return nil, errNoLogs
	}
	d, err := a.Runs.RunGet(ctx, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	at, err := d.Attempt(number)
	if err != nil {
		return nil, err
	}
	if at.LogRemoved {
		return nil, qlerror.New(qlerror.NotFound, "run %s: the log of attempt %d was removed by log retention (it held %d bytes)", d.Run.ID, at.Number, at.LogBytes).Because(RefusalLogRemoved)
	}
	// One byte more than an answer holds says whether the log goes on
	// past it. A log not created yet holds nothing.
	var buf bytes.Buffer
	truncated := at.LogTruncated
	reached := int64(0)
	if at.StartedAtMs != nil {
		if tail > 0 {
			if offset, err = a.tailStart(ctx, at.ID, tail); err != nil && !qlerror.Is(err, qlerror.NotFound) {
				return nil, err
			}
		}
		next, cut, err := a.ReadLog(ctx, at.ID, offset, MaxLogAnswer+1, &buf)
		switch {
		case qlerror.Is(err, qlerror.NotFound) && at.State == run.AttemptStarting:
			// Its command creates the log as it starts.
		case qlerror.Is(err, qlerror.NotFound):
			return nil, a.logGone(r, d.Run.ID, at, err)
		case err != nil:
			return nil, err
		default:
			reached, truncated = next, truncated || cut
		}
	}
	// A read from past the end answers the log's length as where it
	// ends, which is then before the offset.
	if offset > reached {
		return logPastEnd{runID: d.Run.ID, number: at.Number, offset: offset, length: reached}, nil
	}
	body, more := buf.Bytes(), buf.Len() > MaxLogAnswer
	body = body[:min(len(body), MaxLogAnswer)]
	last := d.Attempts[len(d.Attempts)-1]
	return logAnswer{body: body, headers: map[string]string{
		view.HeaderAttempt:       strconv.FormatInt(at.Number, 10),
		view.HeaderLatestAttempt: strconv.FormatInt(last.Number, 10),
		view.HeaderLogStart:      strconv.FormatInt(offset, 10),
		view.HeaderLogOffset:     strconv.FormatInt(offset+int64(len(body)), 10),
		view.HeaderLogComplete:   strconv.FormatBool(!more),
		view.HeaderLogTruncated:  strconv.FormatBool(truncated),
		view.HeaderAttemptEnded:  strconv.FormatBool(at.State.Terminal() || at.ID != last.ID || d.Run.State.Finished()),
		view.HeaderRunState:      string(d.Run.State),
		view.HeaderRunEnded:      strconv.FormatBool(d.Run.State.Finished()),
	}}, nil
}

// CodeLogMissing is the server's line for a started attempt whose log
// file is missing: it names the file, which the API's answer does not.
const CodeLogMissing = "http.log_missing"

// logGone is the refusal of the log of an attempt whose command started
// but whose log the server does not find: removed from its disk while or
// after the command ran (or never written, which the attempt's error
// says). Where the server keeps its logs is its own: the path goes to the
// server's log, not to a client holding a read token.
func (a *api) logGone(r *http.Request, runID string, at run.Attempt, err error) error {
	a.Log.Warn("the log of an attempt is missing", slog.String("code", CodeLogMissing), slog.String("path", r.URL.Path), slog.String("attempt", at.ID), slog.String("error", err.Error()))
	return qlerror.New(qlerror.NotFound, "run %s: the log of attempt %d is gone from the server's disk: it was removed while or after the attempt ran "+
		"(or never created: the attempt's error message then says why); the server's log names the file", runID, at.Number).Because(RefusalLogRemoved)
}

// wholeParam is query parameter name as a whole number of at least min,
// 0 when left out; what says what it must be instead.
func wholeParam(q map[string]string, name string, min int64, what string) (int64, error) {
	v, ok := q[name]
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < min {
		return 0, qlerror.New(qlerror.Invalid, "%s %q is not %s", name, clip(v), what).
			Because(RefusalQueryNotACount, "parameter", name, "value", clip(v), "min", min)
	}
	return n, nil
}
