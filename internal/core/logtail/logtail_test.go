package logtail

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// bytesLog reads log as both stores' readers do, adding up the bytes it
// hands out in read.
func bytesLog(log []byte, read *int64) Reader {
	return func(_ context.Context, offset, max int64, w io.Writer) (int64, error) {
		if offset > int64(len(log)) {
			return int64(len(log)), nil
		}
		end := min(int64(len(log)), offset+max)
		*read += end - offset
		_, err := w.Write(log[offset:end])
		return end, err
	}
}

// The last n lines begin after the n-th newline before the log's end, a
// newline that is the log's last byte ending its last line (as tail -n
// counts); a log of n lines or fewer is printed whole.
func TestTheLastLinesBeginAfterTheNthNewlineBeforeTheEnd(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 3*maxWindow) + "\n"
	for _, c := range []struct {
		log  string
		n    int
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc\n"},
		{"a\nb\nc", 2, "b\nc"},
		{"a\nb\nc\n", 3, "a\nb\nc\n"},
		{"a\nb\nc\n", 10, "a\nb\nc\n"},
		{"a\n\n\n", 2, "\n\n"},
		{"\n", 1, "\n"},
		{"", 1, ""},
		{"head\n" + long + "tail\n", 2, long + "tail\n"},
		{"head\n" + long, 1, long},
	} {
		var read int64
		log := []byte(c.log)
		r := bytesLog(log, &read)
		size, err := Length(t.Context(), r)
		if err != nil || size != int64(len(log)) {
			t.Fatalf("length of a %d-byte log: %d, %v", len(log), size, err)
		}
		start, err := Start(t.Context(), r, size, c.n)
		if got := string(log[start:]); err != nil || got != c.want {
			t.Errorf("the last %d lines of %.20q: %.20q (%d bytes), %v; want %.20q (%d bytes)", c.n, c.log, got, len(got), err, c.want, len(c.want))
		}
	}
}

// Finding the last lines of a long log reads the bytes near its end, not
// the log: the last three lines of 8 MiB take one window of firstWindow
// bytes, and lines longer than a window take windows that double up to
// maxWindow, never one larger.
func TestFindingTheLastLinesReadsOnlyNearTheEnd(t *testing.T) {
	t.Parallel()
	log := bytes.Repeat([]byte("0123456789abcde\n"), 8<<20/16)
	var read int64
	start, err := Start(t.Context(), bytesLog(log, &read), int64(len(log)), 3)
	if err != nil || start != int64(len(log)-48) {
		t.Fatalf("the last three lines of 8 MiB start at %d, %v; want %d", start, err, len(log)-48)
	}
	if read > firstWindow {
		t.Errorf("finding the last three lines of 8 MiB read %d bytes; want at most the first window's %d", read, firstWindow)
	}
	var largest int64
	widest := func(_ context.Context, offset, most int64, w io.Writer) (int64, error) {
		largest = max(largest, most)
		return bytesLog(log, &read)(t.Context(), offset, most, w)
	}
	if _, err := Start(t.Context(), widest, int64(len(log)), MaxLines); err != nil || largest > maxWindow {
		t.Errorf("the last %d lines read a window of %d bytes at once, %v; want at most %d", MaxLines, largest, err, maxWindow)
	}
}

// A line count outside 1 to MaxLines is refused naming the range; a log
// that became shorter while its lines were sought is said, not answered
// with lines of the wrong place.
func TestALineCountOutOfRangeOrALogCutMeanwhileIsRefused(t *testing.T) {
	t.Parallel()
	for _, n := range []int64{0, -1, MaxLines + 1} {
		if err := CheckLines("--tail", n); err == nil || !strings.Contains(err.Error(), "give 1 to 10000 lines") {
			t.Errorf("%d lines: %v; want a refusal naming the range", n, err)
		}
	}
	if err := CheckLines("--tail", MaxLines); err != nil {
		t.Errorf("%d lines: %v", MaxLines, err)
	}
	var read int64
	if _, err := Start(t.Context(), bytesLog([]byte("a\nb\n"), &read), 100, 1); err == nil || !strings.Contains(err.Error(), "the log changed") {
		t.Errorf("a log cut from 100 to 4 bytes: %v; want it said", err)
	}
}
