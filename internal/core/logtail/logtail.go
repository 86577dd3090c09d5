// Package logtail finds where the last lines of an attempt's log begin,
// reading the log backwards from its end a window at a time through the
// reader every store already offers (offset and length), so the tail of a
// log of any size costs about the tail's own bytes, never the whole log:
// on SQLite profiles a seek in the log file, on the cluster a read of the
// chunks by primary key from the window's offset.
package logtail

import (
	"bytes"
	"context"
	"io"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// MaxLines is the most lines a tail may ask for: past it the tail is
// most of a long log, which reading it whole does as well.
const MaxLines = 10_000

// RefusalLines is the reason of a line count outside 1 to MaxLines.
const RefusalLines qlerror.Reason = "log_tail_lines"

// Reader copies at most max bytes of a log from offset on to w and
// returns the offset after them; from an offset past the log's end it
// copies nothing and returns the log's length (both stores' log readers
// do so).
type Reader func(ctx context.Context, offset, max int64, w io.Writer) (next int64, err error)

// Window bounds: the first read takes firstWindow bytes before the end,
// each next one twice the last up to maxWindow, so a tail of short lines
// takes one small read and a tail of long ones a few large ones, none
// holding more than maxWindow in memory.
const (
	firstWindow = 64 << 10
	maxWindow   = 1 << 20
)

// pastAnyEnd is an offset past the end of every log: a read from it
// answers the log's length.
const pastAnyEnd = 1 << 62

// CheckLines refuses a line count outside 1 to MaxLines; what names the
// way it was given (a flag, a query parameter).
func CheckLines(what string, n int64) error {
	if n < 1 || n > MaxLines {
		return qlerror.New(qlerror.Invalid, "%s %d is not a line count: give 1 to %d lines, or leave it out for the whole log", what, n, MaxLines).
			Because(RefusalLines, "value", n, "max", MaxLines)
	}
	return nil
}

// Length is how many bytes the log holds now.
func Length(ctx context.Context, read Reader) (int64, error) {
	return read(ctx, pastAnyEnd, 1, io.Discard)
}

// Start is the offset where the last n lines of a log of size bytes
// begin: after the n-th newline before its end, a newline that is the
// log's last byte ending its last line rather than starting an empty one
// (as tail -n counts); 0 when the log holds n lines or fewer.
func Start(ctx context.Context, read Reader, size int64, n int) (int64, error) {
	if n < 1 || n > MaxLines {
		return 0, CheckLines("the tail's line count", int64(n))
	}
	hi, window := size, int64(firstWindow)
	for hi > 0 {
		lo := max(0, hi-window)
		var buf bytes.Buffer
		if _, err := read(ctx, lo, hi-lo, &buf); err != nil {
			return 0, err
		}
		b := buf.Bytes()
		if int64(len(b)) != hi-lo {
			// The log holds fewer bytes than it did: it was cut or
			// replaced while its tail was sought.
			return 0, qlerror.New(qlerror.Unavailable, "the log changed while its last lines were sought (it holds fewer than the %d bytes it did); ask again", size)
		}
		if hi == size && b[len(b)-1] == '\n' {
			b = b[:len(b)-1]
		}
		for i := len(b) - 1; i >= 0; i-- {
			if b[i] != '\n' {
				continue
			}
			if n--; n == 0 {
				return lo + int64(i) + 1, nil
			}
		}
		hi, window = lo, min(2*window, maxWindow)
	}
	return 0, nil
}
