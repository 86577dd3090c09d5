package executor

import (
	"os"
	"syscall"

	"github.com/qinglong/qinglong/internal/core/run"
)

// cappedLog writes a command's output to its log file up to a byte cap and
// counts the rest. It never refuses a write: the command must never block
// on a full pipe because its log is full.
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
	err       error
}

// createLog creates an attempt's log. The file must not exist yet (each
// attempt starts once) and must not be a symlink: a link planted in the log
// directory would otherwise make the server write, as its own user, to
// wherever the link points.
func createLog(path string, limit int64) (*cappedLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	return &cappedLog{file: f, cap: limit}, nil
}

func (l *cappedLog) Write(p []byte) (int, error) {
	l.total += int64(len(p))
	room := l.cap - l.kept
	keep := min(room, int64(len(p)))
	if keep < int64(len(p)) {
		l.truncated = true
	}
	if keep > 0 && l.err == nil {
		n, err := l.file.Write(p[:keep])
		l.kept += int64(n)
		l.stored += int64(n)
		l.err = err
	}
	return len(p), nil
}

// Close marks a truncated log and closes the file; it returns the first
// write error, if any.
func (l *cappedLog) Close() error {
	if l.truncated && l.err == nil {
		var n int
		n, l.err = l.file.Write(run.TruncationMarker(l.cap))
		l.stored += int64(n)
	}
	if err := l.file.Close(); l.err == nil {
		l.err = err
	}
	return l.err
}
