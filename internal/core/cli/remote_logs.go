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
