package console

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// logDownload answers an attempt's whole log (?attempt=N, the latest when
// left out) as a file to save: the bytes as stored, never made text as a
// page shows them, read from the store a piece of at most logPiece bytes
// at a time, each under a page's time limit, and written as it is read,
// so no log is ever held whole in memory and a long one is not cut off by
// one request's limit. A running attempt's download is what its log holds
// so far.
//
// Everything that can be refused is refused before the first byte, as a
// page in the request's language. A read that fails after it (the log
// removed meanwhile, a store out of time) cuts the connection: the browser
// then says the download failed, rather than keep a shorter file as if it
// were the whole log.
func (c *Console) logDownload(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.ReadLog == nil {
		c.failWith(w, r, s, http.StatusNotFound, tr(lang(r), "err.nolog"))
		return
	}
	ctx := r.Context()
	number, err := attemptParam(r)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d, err := c.runOf(ctx, r.PathValue("id"))
	if err != nil {
		c.failRead(w, r, s, err)
		return
	}
	a, err := d.Attempt(number)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	if a.LogRemoved {
		c.failRemoved(w, r, s, d, a)
		return
	}
	if a.StartedAtMs == nil {
		c.failWith(w, r, s, http.StatusNotFound, fmt.Sprintf(tr(lang(r), "dl.notstarted"), a.Number, d.Run.ID))
		return
	}
	size := int64(-1)
	if attemptEnded(d, a) {
		if size, err = c.heldExactly(ctx, a); err != nil {
			c.failFirstRead(w, r, s, d, a, err)
			return
		}
	}
	dl := &download{c: c, w: w, rc: http.NewResponseController(w), attemptID: a.ID, size: size}
	// The first piece is read before anything is answered, so that a log
	// that cannot be read is said on a page.
	if err := dl.read(ctx); err != nil {
		c.failFirstRead(w, r, s, d, a, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+logFileName(d.Run, a.Number)+`"`)
	if size >= 0 {
		h.Set("Content-Length", strconv.FormatInt(size, 10))
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	if err := dl.rest(ctx); err != nil {
		if errors.Is(err, errClientGone) {
			return
		}
		c.cfg.Log.Warn("console: a log download was cut off", "code", CodeLogDownloadCut, "run", d.Run.ID, "attempt", a.Number, "sent", dl.offset, "err", err)
		panic(http.ErrAbortHandler)
	}
}

// attemptEnded reports whether attempt a of the Run d will write no more
// output: it ended, a later attempt replaced it, or the Run ended.
func attemptEnded(d run.Detail, a run.Attempt) bool {
	return a.State.Terminal() || a.ID != d.Attempts[len(d.Attempts)-1].ID || d.Run.State.Finished()
}

// heldExactly is the size of an ended attempt's log when the log holds
// exactly the bytes its record counts, else -1: a record a crash left
// behind may count fewer, and the download then gives the log as it is,
// without a length it could not keep to.
func (c *Console) heldExactly(ctx context.Context, a run.Attempt) (int64, error) {
	from := max(0, a.LogBytes-1)
	var held byteCount
	if err := c.readLog(ctx, a.ID, from, 2, &held); err != nil {
		return -1, err
	}
	if int64(held) != a.LogBytes-from {
		return -1, nil
	}
	return a.LogBytes, nil
}

// errClientGone is a download whose browser stopped taking its bytes.
var errClientGone = errors.New("the browser stopped taking the download")

// download is an attempt's log on its way to the browser: offset bytes of
// it are read, and size is how many it has in all (-1: as many as the log
// holds when it is read).
type download struct {
	c         *Console
	w         http.ResponseWriter
	rc        *http.ResponseController
	attemptID string
	size      int64
	offset    int64
	// piece is the last piece read, not yet written; done: the log has no
	// more after it.
	piece bytes.Buffer
	done  bool
}

// rest writes the piece read and goes on reading and writing the log a
// piece at a time until its end. Each write has a minute of its own: a
// long log outlives the server's write timeout.
func (dl *download) rest(ctx context.Context) error {
	for {
		_ = dl.rc.SetWriteDeadline(time.Now().Add(time.Minute))
		if _, err := dl.w.Write(dl.piece.Bytes()); err != nil {
			return fmt.Errorf("%w: %w", errClientGone, err)
		}
		dl.offset += int64(dl.piece.Len())
		if dl.done {
			return nil
		}
		if err := dl.read(ctx); err != nil {
			return err
		}
	}
}

// read reads the piece after what was written. A log of known size that
// ends short of it was changed under the download (removed by retention):
// that is an error, the length the answer promised cannot be kept.
func (dl *download) read(ctx context.Context) error {
	want := int64(logPiece)
	if dl.size >= 0 {
		want = min(want, dl.size-dl.offset)
	}
	dl.piece.Reset()
	if want == 0 {
		dl.done = true
		return nil
	}
	if err := dl.c.readLog(ctx, dl.attemptID, dl.offset, want, &dl.piece); err != nil {
		return err
	}
	got := int64(dl.piece.Len())
	if got < want && dl.size >= 0 {
		return fmt.Errorf("the log of attempt %s ends at byte %d, short of the %d bytes its record counted", dl.attemptID, dl.offset+got, dl.size)
	}
	dl.done = got < want || dl.offset+got == dl.size
	return nil
}

// failRead answers a read of the Run that failed: out of its time limit,
// the page saying so; else as any failure.
func (c *Console) failRead(w http.ResponseWriter, r *http.Request, s *session, err error) {
	if errors.Is(err, errLate) {
		c.failWith(w, r, s, http.StatusGatewayTimeout, fmt.Sprintf(tr(lang(r), "err.timeout"), c.cfg.RequestTimeout))
		return
	}
	c.fail(w, r, s, err)
}

// failFirstRead answers a read of the log that failed before anything was
// sent. An ended attempt whose log is not found was removed by log
// retention since its Run was read (retention removes no other).
func (c *Console) failFirstRead(w http.ResponseWriter, r *http.Request, s *session, d run.Detail, a run.Attempt, err error) {
	if qlerror.Is(err, qlerror.NotFound) && attemptEnded(d, a) {
		c.failRemoved(w, r, s, d, a)
		return
	}
	c.failRead(w, r, s, err)
}

// failRemoved answers the download of a log log retention removed: 410,
// saying so, how much it held and since when it may have gone (the end of
// its Run, from which retention counts).
func (c *Console) failRemoved(w http.ResponseWriter, r *http.Request, s *session, d run.Detail, a run.Attempt) {
	l := lang(r)
	msg := formatText(c.named(tr(l, "dl.removed")), a.Number, d.Run.ID, a.LogBytes)
	ended := d.Run.FinishedAtMs
	if ended == nil {
		ended = a.FinishedAtMs
	}
	if ended != nil {
		// The end's time as every other time of the console: whole on
		// its line, in the viewer's zone with its offset.
		zone, _ := viewerZones(r)
		msg += formatText(c.named(tr(l, "dl.removed.since")), unbroken(when(*ended, zone)))
	}
	c.failWithHTML(w, r, s, http.StatusGone, msg)
}

// logFileName is the name a downloaded log is saved under,
// PROJECT-TRIGGER-RUN-attempt-N.log, of characters safe in a header's
// quoted string and in a file name on any system: any other is written _.
func logFileName(x run.Run, number int64) string {
	var parts []string
	for _, p := range []string{x.ProjectName, x.TriggerName, x.ID} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	name := strings.Join(parts, "-") + "-attempt-" + strconv.FormatInt(number, 10) + ".log"
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, strings.TrimLeft(name, "."))
}
