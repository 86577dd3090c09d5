package cli

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/view"
)

// readRunLog copies the log of attempt at.number of run at.runID from
// offset on to w, as GET /api/v1/runs/{id}/log answers it a piece at a
// time, asking again from each answer's offset until one reaches the end
// of what the log holds; it returns the offset after what it copied and
// whether the log was cut at its size cap. What an answer carried is
// written before the next is asked, so a failure leaves w with whole
// answers only, each the bytes at the offsets it names.
func (c *apiClient) readRunLog(ctx context.Context, at attemptRef, offset int64, w io.Writer) (int64, bool, error) {
	path := "/api/v1/runs/" + url.PathEscape(at.runID) + "/log"
	for {
		q := url.Values{"attempt": {strconv.FormatInt(at.number, 10)}, "offset": {strconv.FormatInt(offset, 10)}}
		h, body, err := c.send(ctx, http.MethodGet, path, q, "", nil)
		if qlerror.ReasonOf(err) == httpapi.RefusalLogOffsetPastEnd {
			if held, perr := strconv.ParseInt(h.Get(view.HeaderLogLength), 10, 64); perr == nil && held < offset {
				return offset, false, &logShorter{held: held, offset: offset}
			}
		}
		if err != nil {
			return offset, false, c.noLogRoute(err)
		}
		next, err := strconv.ParseInt(h.Get(view.HeaderLogOffset), 10, 64)
		complete := h.Get(view.HeaderLogComplete) == "true"
		// An answer that says nothing of where it ends, or that took no
		// step while saying more is left, would be followed forever.
		if err != nil || next != offset+int64(len(body)) || (!complete && len(body) == 0) {
			return offset, false, qlerror.New(qlerror.Unavailable, "the server at %s answered a log that is not the QingLong API's (offset %q after %d bytes from %d); check --api-url",
				c.base, h.Get(view.HeaderLogOffset), len(body), offset)
		}
		if _, err := w.Write(body); err != nil {
			return offset, false, err
		}
		offset = next
		if complete {
			return offset, h.Get(view.HeaderLogTruncated) == "true", nil
		}
	}
}

// noLogRoute says what to do when the server is older than the log route:
// its "no such endpoint" would otherwise read as a log not written yet,
// and a follower would wait for output that never comes.
func (c *apiClient) noLogRoute(err error) error {
	var qe *qlerror.Error
	if errors.As(err, &qe) && qe.Code == qlerror.NotFound && strings.HasPrefix(qe.Msg, "server: no such endpoint ") {
		return qlerror.Wrap(qlerror.FailedPrecondition, err, "the server at %s serves no run logs over its API (it is older than this ql): "+
			"upgrade it, or run `ql runs logs` where its database is", c.base).Because(httpapi.RefusalNotOverTheAPI)
	}
	return err
}

// readRunLogTail copies the last lines lines of attempt at.number of run
// at.runID to w: the server finds where they begin (?tail=N) and answers
// from there, and the rest is asked from each answer's offset as
// readRunLog asks it.
func (c *apiClient) readRunLogTail(ctx context.Context, at attemptRef, lines int, w io.Writer) (int64, bool, error) {
	path := "/api/v1/runs/" + url.PathEscape(at.runID) + "/log"
	q := url.Values{"attempt": {strconv.FormatInt(at.number, 10)}, "tail": {strconv.Itoa(lines)}}
	h, body, err := c.send(ctx, http.MethodGet, path, q, "", nil)
	var qe *qlerror.Error
	if qlerror.ReasonOf(err) == httpapi.RefusalQueryUnknown && errors.As(err, &qe) && qe.Params["parameter"] == "tail" {
		return 0, false, qlerror.Wrap(qlerror.FailedPrecondition, err, "the server at %s cannot answer a log's last lines (it is older than this command): "+
			"upgrade it, or leave out --tail", c.base).Because(httpapi.RefusalNotOverTheAPI)
	}
	if err != nil {
		return 0, false, c.noLogRoute(err)
	}
	start, serr := strconv.ParseInt(h.Get(view.HeaderLogStart), 10, 64)
	next, nerr := strconv.ParseInt(h.Get(view.HeaderLogOffset), 10, 64)
	complete := h.Get(view.HeaderLogComplete) == "true"
	if serr != nil || nerr != nil || next != start+int64(len(body)) || (!complete && len(body) == 0) {
		return 0, false, qlerror.New(qlerror.Unavailable, "the server at %s answered a log tail that is not the QingLong API's (start %q, offset %q after %d bytes); check --api-url",
			c.base, h.Get(view.HeaderLogStart), h.Get(view.HeaderLogOffset), len(body))
	}
	if _, err := w.Write(body); err != nil {
		return start, false, err
	}
	if complete {
		return next, h.Get(view.HeaderLogTruncated) == "true", nil
	}
	return c.readRunLog(ctx, at, next, w)
}
