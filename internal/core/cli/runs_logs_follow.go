package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/bytecount"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// Polling bounds of `runs logs -f`: quick while output flows, backing off
// to at most followMaxWait while the run is quiet, so a follower costs the
// database a few small reads a second at most.
const (
	followMinWait = 100 * time.Millisecond
	followMaxWait = time.Second
)

// A follower waits out an unavailable database or server (a restart, a
// failover, a lost connection: what ends a pooled connection) for up to
// followOutageLimit in one outage, asking again after a wait doubling up to
// followOutageMaxWait; a longer outage ends it with what to run.
const (
	followOutageLimit   = 5 * time.Minute
	followOutageMaxWait = 5 * time.Second
)

// attemptRef names one attempt's log: by the attempt's id on the
// database, by its run and number over the API.
type attemptRef struct {
	runID, id string
	number    int64
}

// logSource reads an attempt's log from offset on to w, and returns the
// offset after what it copied and whether the log was cut at its size cap;
// NotFound when the attempt has no log yet.
type logSource func(ctx context.Context, at attemptRef, offset int64, w io.Writer) (next int64, truncated bool, err error)

// tailSource reads the last lines lines of an attempt's log to w, and
// returns the offset after what it copied and whether the log was cut at
// its size cap; NotFound when the attempt has no log yet.
type tailSource func(ctx context.Context, at attemptRef, lines int, w io.Writer) (next int64, truncated bool, err error)

// logFollower copies a run's output to out.
type logFollower struct {
	runs run.Reader
	log  logSource
	// tail, when not 0, is how many of the last lines of the first log
	// read are printed (--tail), read through tailLog; tailed says that
	// read was made, and every later one goes on from its offset.
	tail    int
	tailLog tailSource
	tailed  bool
	// from names where the run and its log are read, in the messages of
	// an outage: "the database" or "the server".
	from string
	// limit bounds each read of the run (0: none of the follower's own;
	// the API's requests have theirs).
	limit time.Duration
	// again is the command that follows the run again, as the user gave
	// it: what a follower that gives up tells them to run.
	again string
	runID string
	// number is the attempt asked for, 0 for the latest: a follower
	// given one stays on it rather than moving to the attempts after it.
	number int64
	out    io.Writer
	errOut io.Writer
	// attemptID (number attemptNumber) is the attempt being copied and
	// offset how much of its log out has received.
	attemptID     string
	attemptNumber int64
	offset        int64
	truncated     bool
	// downSince is when the database (or server) stopped answering
	// (zero while it answers); downWait the wait before the next try.
	downSince time.Time
	downWait  time.Duration
	// waiting is the last reason to wait printed, so a follower says
	// each one once, not at every round.
	waiting string
	// named is a message as this invocation would paste the commands it
	// quotes (asSuggested);
	// nil leaves it as it is.
	named func(string) string
	// moved: the follower went on from an earlier attempt to attemptID,
	// whose start it has not said yet.
	moved bool
	// gone is the attempt whose log was said gone, so it is said once.
	gone string
	// last is the run as last read: once the follower has returned, the
	// state it ended in.
	last run.Detail
}

// attemptEnd says how an ended attempt ended, on one line: its state, a
// non-zero exit code, and its error code and message when they say more
// than the state.
func attemptEnd(a run.Attempt) string {
	s := string(a.State)
	if a.ExitCode != nil && *a.ExitCode != 0 {
		s += fmt.Sprintf(", exit code %d", *a.ExitCode)
	}
	if why := attemptError(a); why != "-" && why != string(a.State) {
		s += " (" + why + ")"
	}
	return s
}

// retryAt is when the Run's retry backoff lets attempt next start, from
// the run.retry_wait event that created it; false when no backoff holds it
// (none was set, or the attempt was queued again at once).
func retryAt(d run.Detail, next string) (int64, bool) {
	for _, e := range d.Events {
		if e.Name != run.EventRetryWait {
			continue
		}
		var p struct {
			NextAttemptID string `json:"nextAttemptId"`
			AvailableAtMs int64  `json:"availableAtMs"`
		}
		if json.Unmarshal([]byte(e.Payload), &p) == nil && p.NextAttemptID == next && p.AvailableAtMs > e.CreatedAtMs {
			return p.AvailableAtMs, true
		}
	}
	return 0, false
}

// moveTo makes attempt next the one followed, saying how the one followed
// until now ended and, when the retry backoff holds next, until when:
// the attempt a retry creates exists before it starts, and a backoff can
// be long.
func (l *logFollower) moveTo(d run.Detail, next run.Attempt) {
	if l.attemptID != "" {
		for _, a := range d.Attempts {
			if a.ID != l.attemptID {
				continue
			}
			if l.moved && a.StartedAtMs != nil {
				// It started and ended between two rounds.
				l.say("(attempt %d started: %s)\n", a.Number, a.ID)
			}
			line := fmt.Sprintf("(attempt %d ended: %s", a.Number, attemptEnd(a))
			if at, ok := retryAt(d, next.ID); ok && next.StartedAtMs == nil {
				line += fmt.Sprintf("; attempt %d waits out the retry backoff until %s", next.Number, fmtMs(&at))
			}
			l.say("%s)\n", line)
		}
		l.moved = true
	}
	l.attemptID, l.attemptNumber, l.offset, l.truncated = next.ID, next.Number, 0, false
}

// noteStart says once that the attempt the follower moved on to started.
func (l *logFollower) noteStart(d run.Detail) {
	if n := len(d.Attempts); l.moved && n > 0 && d.Attempts[n-1].ID == l.attemptID && d.Attempts[n-1].StartedAtMs != nil {
		l.say("(attempt %d started: %s)\n", d.Attempts[n-1].Number, d.Attempts[n-1].ID)
		l.moved = false
	}
}

// runEnd is the line a follower ends with: the Run's end state, and for a
// Run that did not succeed, how its last attempt ended when that says
// more than the state.
func runEnd(runID string, d run.Detail) string {
	line := fmt.Sprintf("(run %s ended: %s", runID, d.Run.State)
	if n := len(d.Attempts); n > 0 && d.Run.State != run.Succeeded {
		a := d.Attempts[n-1]
		if end := attemptEnd(a); end != string(d.Run.State) {
			line += fmt.Sprintf("; attempt %d: %s", a.Number, end)
		}
	}
	return line + ")"
}

// noteWaiting says on standard error why the queued Run has not started
// (no worker fits it, the server's slots are full, no server runs, ...),
// when that reason is new: a follower otherwise sits silent with nothing
// to tell the user why.
func (l *logFollower) noteWaiting(w *run.Waiting) {
	msg := ""
	if w != nil {
		msg = w.AfterWaits()
		if l.named != nil {
			msg = l.named(msg)
		}
	}
	if msg != "" && msg != l.waiting {
		l.say("(run %s waits%s)\n", l.runID, oneLine(msg))
	}
	l.waiting = msg
}

// chosen reads the run and the attempt l.number names, and makes it the
// one whose log is read.
func (l *logFollower) chosen(ctx context.Context) (run.Detail, run.Attempt, error) {
	d, err := l.runGet(ctx)
	if err != nil {
		return d, run.Attempt{}, err
	}
	a, err := d.Attempt(l.number)
	if err != nil {
		return d, a, err
	}
	l.attemptID, l.attemptNumber = a.ID, a.Number
	return d, a, nil
}

// RefusalLogNotStarted is the reason of `runs logs` (without -f) of an
// attempt that has not started: it has no log yet, which is no failure of
// the Run's, and -f waits for it.
const RefusalLogNotStarted qlerror.Reason = "log_not_started"

// once prints the chosen attempt's log as it is now.
func (l *logFollower) once(ctx context.Context) error {
	d, a, err := l.chosen(ctx)
	if err != nil {
		return err
	}
	switch {
	case a.LogRemoved:
		return qlerror.New(qlerror.NotFound, "run %s: the log of attempt %d was removed by log retention (it held %d bytes); its Run's other facts remain (`ql runs show %s`); raise the server's --retention-logs to keep logs longer",
			l.runID, a.Number, a.LogBytes, l.runID).Because(httpapi.RefusalLogRemoved)
	case a.StartedAtMs == nil && d.Waiting != nil && a.ID == d.Attempts[len(d.Attempts)-1].ID:
		return qlerror.New(qlerror.NotFound, "run %s: attempt %d has not started yet, so it has no output; it waits%s; add -f to print its output once it starts",
			l.runID, a.Number, d.Waiting.AfterWaits()).Because(RefusalLogNotStarted)
	case a.StartedAtMs == nil && a.State.Terminal():
		// A Run cancelled while it waited: its output is empty, and
		// complete, so this is no failure; "not yet" would promise
		// output that never comes.
		l.say("(run %s: attempt %d ended (%s) before it started, so it has no output)\n", l.runID, a.Number, a.State)
		return nil
	case a.StartedAtMs == nil:
		return qlerror.New(qlerror.NotFound, "run %s: attempt %d has not started yet, so it has no output; add -f to print its output once it starts", l.runID, a.Number).
			Because(RefusalLogNotStarted)
	}
	if _, err := l.read(ctx, false); err != nil {
		return err
	}
	l.noteTruncated(a)
	return nil
}

// follow prints output as it arrives until the run ends. The run's state
// is read before its log in each round, so the round that sees the run
// ended also reads every byte written before it ended.
func (l *logFollower) follow(ctx context.Context) (err error) {
	defer func() {
		// Ctrl-C stops the following, not the Run: say so, and how to
		// follow it again, before the command says it was interrupted.
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			l.say("(stopped following; run %s goes on: `%s` follows it again)\n", l.runID, l.again)
		}
	}()
	if l.number != 0 {
		return l.followOne(ctx)
	}
	wait := followMinWait
	for {
		d, err := l.runGet(ctx)
		if err != nil {
			if err := l.outage(ctx, err); err != nil {
				return err
			}
			continue
		}
		ended := d.Run.State.Terminal() || d.Run.State == run.Lost
		l.noteWaiting(d.Waiting)
		if n := len(d.Attempts); n > 0 && d.Attempts[n-1].ID != l.attemptID {
			// Output of the previous attempt written after the last round
			// is read from the offset reached before moving on.
			if l.attemptID != "" {
				if _, err := l.read(ctx, true); err != nil {
					if err := l.outage(ctx, err); err != nil {
						return err
					}
					continue
				}
			}
			l.moveTo(d, d.Attempts[n-1])
		}
		l.noteStart(d)
		got := int64(0)
		if l.attemptID != "" {
			if got, err = l.read(ctx, true); err != nil {
				if err := l.outage(ctx, err); err != nil {
					return err
				}
				continue
			}
		}
		l.answered()
		if ended {
			if n := len(d.Attempts); n > 0 {
				l.noteTruncated(d.Attempts[n-1])
			}
			// "ended: <state>" reads for every end ("is succeeded" did not).
			l.say("%s\n", runEnd(l.runID, d))
			return nil
		}
		if err := pause(ctx, got, &wait); err != nil {
			return err
		}
	}
}

// runGet reads the run, within l.limit.
func (l *logFollower) runGet(ctx context.Context) (run.Detail, error) {
	var d run.Detail
	err := within(ctx, l.limit, l.from, func(ctx context.Context) (err error) {
		d, err = l.runs.RunGet(ctx, l.runID)
		return err
	})
	if err == nil {
		l.last = d
	}
	return d, err
}

// followOne prints attempt l.number's output as it arrives until that
// attempt has ended. As in follow, the state is read before the log, so
// the round that sees the attempt ended (or a later attempt, or the run's
// end) also reads every byte it wrote.
func (l *logFollower) followOne(ctx context.Context) error {
	wait := followMinWait
	for {
		d, a, err := l.chosen(ctx)
		if err == nil {
			ended := a.State.Terminal() || a.ID != d.Attempts[len(d.Attempts)-1].ID || d.Run.State.Terminal() || d.Run.State == run.Lost
			if !ended {
				l.noteWaiting(d.Waiting)
			}
			var got int64
			if got, err = l.read(ctx, true); err == nil {
				l.answered()
				if ended {
					l.noteTruncated(a)
					l.say("(attempt %d of run %s ended: %s; the run's state: %s)\n", a.Number, l.runID, a.State, d.Run.State)
					return nil
				}
				if err := pause(ctx, got, &wait); err != nil {
					return err
				}
				continue
			}
		}
		if err := l.outage(ctx, err); err != nil {
			return err
		}
	}
}

// followAgain is `ql runs logs RUN -f` as the invocation cmd gave it:
// with --attempt N when it chose an attempt, --exit-status when it exits
// by the Run's end, and the flags that chose
// where from (suggest).
func followAgain(cmd *cobra.Command, runID string) string {
	words := []string{"runs", "logs", runID, "-f"}
	if fl := cmd.Flags().Lookup("attempt"); fl != nil && onCommandLine(fl) {
		words = append(words, "--attempt", fl.Value.String())
	}
	if fl := cmd.Flags().Lookup("exit-status"); fl != nil && onCommandLine(fl) {
		words = append(words, "--exit-status")
	}
	return suggest(cmd, words...)
}

// outage decides what a follower does with the error of a round: an
// unavailable database or server is waited for (said once on standard
// error) and
// the round is run again, from the offset already printed, until
// followOutageLimit has passed since it stopped answering; any other
// error, or a longer outage, ends the follower.
func (l *logFollower) outage(ctx context.Context, err error) error {
	if !qlerror.Is(err, qlerror.Unavailable) {
		return err
	}
	now := time.Now()
	switch {
	case l.downSince.IsZero():
		l.downSince, l.downWait = now, followMinWait
		l.say("(%s; waiting up to %s for %s to answer again, then following on from the output already printed)\n", oneLine(err.Error()), validate.Duration(followOutageLimit), l.from)
	case now.Sub(l.downSince) >= followOutageLimit:
		return qlerror.Wrap(qlerror.Unavailable, err, "run %s: %s did not answer for %s while its log was followed; once it answers, run `%s` again", l.runID, l.from, validate.Duration(followOutageLimit), l.again)
	default:
		l.downWait = min(2*l.downWait, followOutageMaxWait)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(l.downWait):
		return nil
	}
}

// answered ends an outage: a whole round was read.
func (l *logFollower) answered() {
	if !l.downSince.IsZero() {
		l.say("(%s answers again; following on)\n", l.from)
		l.downSince = time.Time{}
	}
}

// pause waits before a follower's next round: followMinWait after a round
// that printed output, else twice the last wait up to followMaxWait.
func pause(ctx context.Context, got int64, wait *time.Duration) error {
	if got > 0 {
		*wait = followMinWait
	} else {
		*wait = min(2**wait, followMaxWait)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(*wait):
		return nil
	}
}

// read copies the current attempt's log from the offset reached and
// returns how many bytes it copied. While following, a log that does not
// exist yet (the attempt has not started) is empty.
func (l *logFollower) read(ctx context.Context, following bool) (int64, error) {
	out := bytecount.NewWriter(l.out)
	at := attemptRef{runID: l.runID, id: l.attemptID, number: l.attemptNumber}
	if l.tail > 0 && !l.tailed {
		return l.readTail(ctx, at, out, following)
	}
	next, truncated, err := l.log(ctx, at, l.offset, out)
	var short *logShorter
	if errors.As(err, &short) {
		l.say("(run %s: attempt %d: %s; following on from its end, byte %d)\n", l.runID, l.attemptNumber, short, short.held)
		l.offset = short.held
		return 0, nil
	}
	if following && qlerror.Is(err, qlerror.NotFound) {
		if l.logGone(err) && l.gone != l.attemptID {
			l.gone = l.attemptID
			l.say("(run %s: the log of attempt %d is gone: it was removed while or after the attempt ran, so its output cannot be printed; following the run on)\n", l.runID, l.attemptNumber)
		}
		return 0, nil
	}
	if err != nil {
		// What was printed before the read failed is not printed again:
		// the next read starts after it.
		l.offset += out.Count()
		return out.Count(), err
	}
	got := next - l.offset
	l.offset, l.truncated = next, l.truncated || truncated
	return got, nil
}

// logGone says whether a log the source does not find was removed,
// rather than not created yet: the server says so, or the attempt as last
// read had got past starting, when its command creates its log.
func (l *logFollower) logGone(err error) bool {
	if qlerror.ReasonOf(err) == httpapi.RefusalLogRemoved {
		return true
	}
	for _, a := range l.last.Attempts {
		if a.ID == l.attemptID {
			return a.LogRemoved || (a.StartedAtMs != nil && a.State != run.AttemptClaimed && a.State != run.AttemptStarting)
		}
	}
	return false
}

// say writes a follower's message on standard error, on a line of its own
// where the output goes to a terminal and left its last line unfinished.
func (l *logFollower) say(format string, args ...any) {
	if e, ok := l.out.(*escaper); ok {
		_ = e.EndLine()
	}
	fmt.Fprintf(l.errOut, format, args...)
}

func (l *logFollower) noteTruncated(a run.Attempt) {
	if l.truncated || a.LogTruncated {
		l.say("(output was truncated at the log size cap)\n")
	}
}

// readTail is read's first read under --tail: the attempt's last l.tail
// lines, after which the follower goes on from the offset they end at. A
// log not created yet has no lines to leave out: every byte it comes to
// hold is new, and printed whole.
func (l *logFollower) readTail(ctx context.Context, at attemptRef, out *bytecount.Writer, following bool) (int64, error) {
	next, truncated, err := l.tailLog(ctx, at, l.tail, out)
	switch {
	case err == nil:
		l.tailed, l.offset, l.truncated = true, next, l.truncated || truncated
		return out.Count(), nil
	case following && qlerror.Is(err, qlerror.NotFound):
		l.tailed = true
		return 0, nil
	case out.Count() > 0:
		// Some of the tail was printed: the next read goes on after it,
		// never printing it twice.
		l.tailed, l.offset = true, next
	}
	return out.Count(), err
}
