package executor

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/qinglong/qinglong/internal/core/run"
)

// cappedLog writes a command's output to its log file up to a byte cap and
// counts the rest. It never refuses a write: the command must never block
// on a full pipe because its log is full. The write that passes the cap
// ends the log with the truncation marker at once, as the cluster stores
// it with the chunk that passed its cap, so whoever follows the log while
// the command runs reads that bytes were dropped where they were, not only
// once the command ends; cut is then told, once.
type cappedLog struct {
	file *os.File
	cap  int64
	kept int64
	// total counts the bytes written to the log, kept or not.
	total int64
	// stored counts the bytes in the file: what was kept and the marker.
	// It is the attempt's logBytes, as the cluster counts the bytes it
	// holds.
	stored    int64
	truncated bool
	cut       func()
	err       error
}

// createLog creates an attempt's log. The file must not exist yet (each
// attempt starts once) and must not be a symlink: a link planted in the log
// directory would otherwise make the server write, as its own user, to
// wherever the link points. cut, if not nil, is called the moment the log
// passes limit.
func createLog(path string, limit int64, cut func()) (*cappedLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	return &cappedLog{file: f, cap: limit, cut: cut}, nil
}

func (l *cappedLog) Write(p []byte) (int, error) {
	l.total += int64(len(p))
	if l.truncated {
		return len(p), nil
	}
	keep := min(l.cap-l.kept, int64(len(p)))
	if keep > 0 {
		l.kept += l.store(p[:keep])
	}
	if keep < int64(len(p)) {
		l.truncated = true
		_ = l.store(run.TruncationMarker(l.cap))
		if l.cut != nil {
			l.cut()
		}
	}
	return len(p), nil
}

// store appends b to the file unless a write failed before, and returns
// how much of it the file took.
func (l *cappedLog) store(b []byte) int64 {
	if l.err != nil {
		return 0
	}
	n, err := l.file.Write(b)
	l.stored += int64(n)
	l.err = err
	return int64(n)
}

// Close closes the file; it returns the first write error, if any. After
// a failed write (a full disk) every later byte was dropped, so Close first
// tries to end the file with a line saying how many bytes are missing, which
// the disk may have room for again by then, and the error says it too.
func (l *cappedLog) Close() error {
	if l.err != nil {
		lost := min(l.total, l.cap) - l.kept
		why := l.err
		if pe := (*os.PathError)(nil); errors.As(why, &pe) {
			why = pe.Err
		}
		n, _ := fmt.Fprintf(l.file, "\n[qinglong: %d bytes of output are missing here: the log could not be written (%v)]\n", lost, why)
		l.stored += int64(n)
		l.err = fmt.Errorf("%d bytes of the command's output were not written: %w", lost, why)
	}
	if err := l.file.Close(); l.err == nil {
		l.err = err
	}
	return l.err
}
