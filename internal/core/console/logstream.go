package console

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/websession"
)

// Polling bounds of the live log: quick while output flows, backing off
// while the run is quiet, as `ql runs logs -f` does.
const (
	logMinWait = 100 * time.Millisecond
	logMaxWait = time.Second
)

// logPos is where a log stream stands: the attempt it reads and how many
// bytes of that attempt's log it has sent.
type logPos struct {
	attemptID string
	number    int64
	offset    int64
}

// eventID is the position as a server-sent event's id, "N:OFFSET" (the
// attempt's number and the offset reached): a browser sends the last one
// back as Last-Event-ID when it reconnects, and the stream resumes there.
func (p logPos) eventID() string {
	return strconv.FormatInt(p.number, 10) + ":" + strconv.FormatInt(p.offset, 10)
}

// attemptParam is a request's ?attempt=: 0 when absent, else an attempt
// number (1 or more).
func attemptParam(r *http.Request) (int64, error) {
	v := r.URL.Query().Get("attempt")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 {
		return 0, qlerror.New(qlerror.Invalid, "attempt %q is not an attempt number; use a number the run's attempts table lists (1 is the first)", v).Because(refusalNotAnAttempt)
	}
	return n, nil
}

// logPiece is the most output one read of a live log takes, and one
// "log" event carries: a long log is sent a piece at a time, each read
// under its own time limit, never read whole into memory first.
const logPiece = 1 << 20

// errLate is a read of a live log that ran out of its time limit.
var errLate = errors.New("a read of the live log ran out of its time limit")

// logStream sends a run's output as server-sent events: "log" events of
// JSON strings, each with the position its text reaches as its id, a
// "facts", an "attempts" and an "events" event with the page's facts
// (its state line and why a queued Run waits among them) and the rows of
// its attempts and events tables at the start and each time they change
// until the end (liveTables; the stream cannot know what the page showed,
// the page compares), and one "end" event with the run's state.
// Without ?attempt it starts at the latest attempt and goes on through
// the attempts a retry creates, until the run ends; with ?attempt=N it
// sends attempt N's output until that attempt has ended. A reconnecting
// browser's Last-Event-ID resumes it where the browser stopped, so no byte
// is shown twice.
//
// The stream lasts as long as the run, but each of its reads (the run,
// a piece of its log) has a page's time limit: a read that runs out of it
// ends the stream with a "stopped" event saying so and what to do, which
// the page shows, rather than a stream that stalls with nothing said, or,
// before anything was sent, the browser waiting for an answer that never
// comes.
func (c *Console) logStream(w http.ResponseWriter, r *http.Request, s *session) {
	if c.cfg.ReadLog == nil {
		c.failWith(w, r, s, http.StatusNotFound, tr(lang(r), "err.nolog"))
		return
	}
	ctx := r.Context()
	l := lang(r)
	// The session was checked before this handler ran, so the next check
	// is due a SeenEvery from here: read later (after the Run), a clock
	// that moved meanwhile would put it off by that much.
	checkedMs := c.cfg.NowMs()
	st := &stream{w: w, rc: http.NewResponseController(w)}
	// Past the session's bound the answer is the "stopped" event, which
	// the page shows and which ends its following (a browser would only
	// try again after any other answer, and show nothing).
	if !c.liveLogs.take(s.id) {
		w.Header().Set("Content-Type", "text/event-stream")
		b, _ := json.Marshal(fmt.Sprintf(tr(l, "log.toomany"), maxLiveLogs)) // a string always marshals
		if st.send("event: stopped\ndata: %s\n\n", b) == nil {
			_ = st.rc.Flush()
		}
		return
	}
	defer c.liveLogs.give(s.id)
	id := r.PathValue("id")
	number, err := attemptParam(r)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d, err := c.runOf(ctx, id)
	if err != nil {
		c.failStream(st, l, r, s, err)
		return
	}
	var pos logPos
	if number != 0 {
		a, err := d.Attempt(number)
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		pos = logPos{attemptID: a.ID, number: a.Number}
	}
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		if pos, err = c.resumeAt(ctx, d, number, last); err != nil {
			c.failStream(st, l, r, s, err)
			return
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	wait := logMinWait
	rows := map[string][]byte{}
	p := c.pageOf(r, s, nil)
	checkFailed := false
	for round := 0; ; round++ {
		if round > 0 {
			// The check is due again a SeenEvery after the last one done:
			// one that failed is tried at the next poll, logged once a run.
			if now := c.cfg.NowMs(); now-checkedMs >= websession.SeenEvery.Milliseconds() {
				followed, checked := c.stillFollowed(r, st, l, checkFailed)
				if !followed {
					return
				}
				checkFailed = !checked
				if checked {
					checkedMs = now
				}
			}
			if d, err = c.runOf(ctx, id); err != nil {
				c.stopStream(st, l, err)
				return
			}
		}
		done := d.Run.State.Terminal() || d.Run.State == run.Lost
		got := int64(0)
		if number == 0 {
			// An attempt a later one replaced is sent to its end before
			// the next, so a stream resumed on an earlier attempt misses
			// none in between.
			for n := len(d.Attempts); n > 0 && pos.attemptID != d.Attempts[n-1].ID; pos = nextAttempt(d, pos) {
				if pos.attemptID != "" {
					sent, err := c.sendLog(ctx, st, l, &pos, true)
					if err != nil {
						c.stopStream(st, l, err)
						return
					}
					got += sent
				}
			}
		} else {
			a, err := d.Attempt(number)
			if err != nil {
				return
			}
			done = done || a.State.Terminal() || a.ID != d.Attempts[len(d.Attempts)-1].ID
		}
		// An ended Run's state comes with "end", which reloads the page;
		// a change before it is said ahead of the output that follows it.
		if !done {
			if err := c.sendRows(st, p, d, rows); err != nil {
				return
			}
		}
		if pos.attemptID != "" {
			sent, err := c.sendLog(ctx, st, l, &pos, done)
			if err != nil {
				c.stopStream(st, l, err)
				return
			}
			got += sent
		}
		if done {
			_ = st.send("event: end\ndata: %q\n\n", string(d.Run.State))
			_ = st.rc.Flush()
			return
		}
		if round == 0 {
			if err := st.send(": live\n\n"); err != nil {
				return
			}
		}
		if err := st.rc.Flush(); err != nil {
			return
		}
		if got > 0 {
			wait = logMinWait
		} else {
			wait = min(2*wait, logMaxWait)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// stream is the answer of a live log.
type stream struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// send writes one piece of the stream. A stream outlives the server's
// write timeout: each write has a minute of its own.
func (st *stream) send(format string, args ...any) error {
	_ = st.rc.SetWriteDeadline(time.Now().Add(time.Minute))
	_, err := fmt.Fprintf(st.w, format, args...) //nolint:gosec // G705: a text/event-stream of parsed numbers, JSON strings and a state name; the HTML it carries (a table's rows) is html/template's output
	return err
}

// runOf reads the run under a page's time limit.
func (c *Console) runOf(ctx context.Context, id string) (run.Detail, error) {
	rctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	d, err := c.cfg.Runs.RunGet(rctx, id)
	return d, late(ctx, rctx, err)
}

// readLog reads at most max bytes of an attempt's log from offset on
// under a page's time limit.
func (c *Console) readLog(ctx context.Context, attemptID string, offset, max int64, w io.Writer) error {
	rctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	_, _, err := c.cfg.ReadLog(rctx, attemptID, offset, max, w)
	return late(ctx, rctx, err)
}

// late is err as errLate when the read failed because its own time limit
// (rctx's) ran out while the stream's (ctx) did not: the browser is still
// there to be told.
func late(ctx, rctx context.Context, err error) error {
	if err != nil && errors.Is(rctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return fmt.Errorf("%w: %w", errLate, err)
	}
	return err
}

// failStream answers a failure before the stream started: one out of
// time ends the stream as stopStream does, the page shows it; any other
// is the request's (no such run, a bad Last-Event-ID), answered as a page.
func (c *Console) failStream(st *stream, l string, r *http.Request, s *session, err error) {
	if errors.Is(err, errLate) {
		st.w.Header().Set("Content-Type", "text/event-stream")
		c.stopStream(st, l, err)
		return
	}
	c.fail(st.w, r, s, err)
}

// stopStream ends the stream after a failed read. One out of time says so
// ("stopped": what happened and what to do), and the page stops following;
// after any other failure the stream just ends, and the browser connects
// again on its own, going on from the last event it received.
func (c *Console) stopStream(st *stream, l string, err error) {
	if !errors.Is(err, errLate) {
		return
	}
	c.cfg.Log.Warn("console: the live log stopped", "code", CodeLiveLogStopped, "err", err)
	b, _ := json.Marshal(fmt.Sprintf(tr(l, "log.stopped"), c.cfg.RequestTimeout)) // a string always marshals
	if st.send("event: stopped\ndata: %s\n\n", b) == nil {
		_ = st.rc.Flush()
	}
}

// nextAttempt is where a stream at pos goes next: the attempt after pos's,
// or the latest when it has none yet.
func nextAttempt(d run.Detail, pos logPos) logPos {
	next := d.Attempts[len(d.Attempts)-1]
	for i, a := range d.Attempts[:len(d.Attempts)-1] {
		if a.ID == pos.attemptID {
			next = d.Attempts[i+1]
		}
	}
	return logPos{attemptID: next.ID, number: next.Number}
}

// resumeAt is the position a reconnecting browser's Last-Event-ID names.
// Only a position this stream could have sent is taken: an attempt of the
// run (the one asked for, if one was) and an offset within what its log
// holds. Anything else is refused rather than read from 0, which would
// show the browser what it already has, or from past the end, which would
// leave a hole.
func (c *Console) resumeAt(ctx context.Context, d run.Detail, number int64, last string) (logPos, error) {
	bad := qlerror.New(qlerror.Invalid, "Last-Event-ID %q is not a position of this log stream (attempt:offset, within the attempt's log); reload the page to read the log from its start", last)
	ns, offs, ok := strings.Cut(last, ":")
	n, nErr := strconv.ParseInt(ns, 10, 64)
	off, offErr := strconv.ParseInt(offs, 10, 64)
	if !ok || nErr != nil || offErr != nil || n < 1 || off < 0 || (number != 0 && n != number) {
		return logPos{}, bad
	}
	a, err := d.Attempt(n)
	if err != nil {
		return logPos{}, bad
	}
	if off > 0 {
		// The byte before the offset was sent, so the log holds it.
		var held byteCount
		err := c.readLog(ctx, a.ID, off-1, 1, &held)
		if qlerror.Is(err, qlerror.NotFound) || (err == nil && held == 0) {
			return logPos{}, bad
		}
		if err != nil {
			return logPos{}, err
		}
	}
	return logPos{attemptID: a.ID, number: a.Number, offset: off}, nil
}

// byteCount counts what is written to it and keeps none of it.
type byteCount int64

func (b *byteCount) Write(p []byte) (int, error) {
	*b += byteCount(len(p))
	return len(p), nil
}

// sendLog sends the attempt's output from pos on, a piece of at most
// logPiece bytes at a time (one "log" event each, each read under its own
// time limit), and moves pos past what it sent. Unless final (the
// attempt's log is complete), what the log holds so far may end in the
// middle of a UTF-8 sequence or of a CR LF: that is kept back for the
// next read, which completes it (sent alone, each half of a character
// would show as a replacement character, and a CR as a line of its own).
// So is a stop note ending it: only once the attempt has ended is the note
// the log's last line, which the stream then sends as an event of its own
// ("stop"), in the page's language l, for the page to show apart from the
// command's output as it does once reloaded (stopNote); output that goes
// on after such a line was the command's, sent as it is.
func (c *Console) sendLog(ctx context.Context, st *stream, l string, pos *logPos, final bool) (int64, error) {
	sent := int64(0)
	for {
		var buf bytes.Buffer
		err := c.readLog(ctx, pos.attemptID, pos.offset, logPiece, &buf)
		if qlerror.Is(err, qlerror.NotFound) {
			return sent, nil
		}
		if err != nil {
			return sent, err
		}
		text := buf.Bytes()
		// A whole piece is followed by more, which completes its end.
		full := len(text) == logPiece
		if !final || full {
			text = text[:len(text)-heldBack(text)]
			// Only the last line can be the note: it alone is copied.
			_, stop := splitStop(string(text[bytes.LastIndexByte(bytes.TrimSuffix(text, []byte("\n")), '\n')+1:]))
			text = text[:len(text)-len(stop)]
		}
		if len(text) > 0 {
			pos.offset += int64(len(text))
			output, stop := logText(text), ""
			if final && !full {
				output, stop = splitStop(output)
			}
			if output != "" {
				b, _ := json.Marshal(output) // a string always marshals
				if err := st.send("id: %s\nevent: log\ndata: %s\n\n", pos.eventID(), b); err != nil {
					return sent, err
				}
			}
			if stop != "" {
				b, _ := json.Marshal(stopNote(l, stop))
				if err := st.send("id: %s\nevent: stop\ndata: %s\n\n", pos.eventID(), b); err != nil {
					return sent, err
				}
			}
			sent += int64(len(text))
		}
		if !full {
			return sent, nil
		}
	}
}
