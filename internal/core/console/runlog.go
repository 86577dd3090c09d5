package console

import (
	"bytes"
	"context"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// logShown is how much of an ended attempt's output its Run's page holds,
// its last bytes: about a thousand lines of a usual log, and at most about
// 320 KB of HTML when every byte needs an entity (&amp;).
const logShown = 64 << 10

// lineSearch is how far into the bytes shown the page looks for the end
// of the line they start in the middle of, to start at the next line
// instead; past it (a log of very long lines) the page starts where the
// bytes do, at a whole character.
const lineSearch = 4 << 10

// endedLog is an ended attempt's output as its Run's page renders it on
// the server, so the page shows it on its first paint and with scripts
// off: only a running attempt's output is appended by the script, live.
type endedLog struct {
	// Number is the attempt's (0: the Run has no attempt).
	Number int64
	// Text is the output shown, logText of its last bytes, and Stop the
	// note QingLong wrote last when it stopped the command, split off it
	// (splitStop) for the page to say in its language; "" when the log
	// does not end with one, or goes on past what is shown.
	Text, Stop string
	// Omitted counts the bytes of the log before Text, left out.
	Omitted int64
	// More: the log goes on past Text, longer than its attempt's record
	// says, so only its first logShown bytes are shown.
	More bool
	// Removed: log retention removed the log, which held Bytes.
	Removed bool
	Bytes   int64
}

// endedLog reads what the page shows of an ended attempt's output (a nil
// a: the Run has none). The attempt's record says how long its log is, so
// only the last logShown bytes are read, whatever its length.
func (c *Console) endedLog(ctx context.Context, a *run.Attempt) (*endedLog, error) {
	if a == nil {
		return &endedLog{}, nil
	}
	out := &endedLog{Number: a.Number, Bytes: a.LogBytes, Removed: a.LogRemoved}
	if a.LogRemoved {
		return out, nil
	}
	start := max(0, a.LogBytes-logShown)
	var buf bytes.Buffer
	// One byte more than is shown says whether the log goes on past it.
	_, _, err := c.cfg.ReadLog(ctx, a.ID, start, logShown+1, &buf)
	if qlerror.Is(err, qlerror.NotFound) {
		// It never started: there is no log.
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if len(b) > logShown {
		b, out.More = b[:logShown], true
		b = b[:len(b)-heldBack(b)]
	}
	if start > 0 {
		cut := 0
		if i := bytes.IndexByte(b[:min(len(b), lineSearch)], '\n'); i >= 0 && i+1 < len(b) {
			cut = i + 1
		} else {
			for cut < min(len(b), utf8.UTFMax-1) && !utf8.RuneStart(b[cut]) {
				cut++
			}
		}
		b, start = b[cut:], start+int64(cut)
	}
	out.Text, out.Omitted = logText(b), start
	if !out.More {
		out.Text, out.Stop = splitStop(out.Text)
	}
	return out, nil
}
