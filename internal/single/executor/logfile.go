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
// on a full pipe because its log is full, or because it has no log at all
// (its file could not be created). The write that passes the cap ends the
// log with the truncation marker at once, as the cluster stores it with the
// chunk that passed its cap, so whoever follows the log while the command
// runs reads that bytes were dropped where they were, not only once the
// command ends. cut is told, once, as soon as the log holds less than the
// command wrote: at the cap, or at the first byte a full disk refused.
type cappedLog struct {
	// file is nil when the log could not be created: err says why, and
	// every byte is counted and dropped.
	file *os.File
	cap  int64
	kept int64
	// total counts the bytes written to the log, kept or not.
	total int64
	// stored counts the bytes in the file: what was kept and the marker.
	// It is the attempt's logBytes, as the cluster counts the bytes it
	// holds.
	stored int64
	// capped: the output passed the cap.
	capped bool
	// truncated: some of the output is not in the file, for the cap or
	// for a failed write; it is the attempt's logTruncated.
	truncated bool
	cut       func()
	// grew, if set, learns of every byte the file took, for the
	// dispatcher's count of what logs take on disk.
	grew func(int64)
	err  error
}

// createLog creates an attempt's log. The file must not exist yet (each
// attempt starts once) and must not be a symlink: a link planted in the log
// directory would otherwise make the server write, as its own user, to
// wherever the link points. cut, if not nil, is called the moment the log
// holds less than the command wrote.
func createLog(path string, limit int64, cut func()) (*cappedLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	return &cappedLog{file: f, cap: limit, cut: cut}, nil
}

// discardLog stands for a log that could not be created (why): the command
// runs all the same, its output counted and dropped.
func discardLog(limit int64, cut func(), why error) *cappedLog {
	return &cappedLog{cap: limit, cut: cut, err: why}
}

func (l *cappedLog) Write(p []byte) (int, error) {
	l.total += int64(len(p))
	if !l.capped {
		keep := min(l.cap-l.kept, int64(len(p)))
		if keep > 0 {
			l.kept += l.store(p[:keep])
		}
		if keep < int64(len(p)) {
			l.capped = true
			_ = l.store(run.TruncationMarker(l.cap))
		}
	}
	if !l.truncated && (l.capped || l.kept < l.total) {
		l.truncated = true
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
	if l.grew != nil && n > 0 {
		l.grew(int64(n))
	}
	return int64(n)
}

// dropped is how many bytes of the command's output are not in the file,
// whether the cap or a failed write dropped them.
func (l *cappedLog) dropped() int64 { return l.total - l.kept }

// Close closes the file; it returns the first error, if any, which err
// keeps. After a
// failed write (a full disk) every later byte was dropped, so Close first
// tries to end the file with a line saying how many bytes are missing,
// which the disk may have room for again by then, and the error says it
// too. The counts are of every byte dropped, past the cap as well: the
// cap's marker was one of the writes the disk refused.
func (l *cappedLog) Close() error {
	if l.file == nil {
		return fmt.Errorf("%d bytes of the command's output were not written: the log could not be created: %w", l.total, cause(l.err))
	}
	if l.err != nil {
		why := cause(l.err)
		n, _ := fmt.Fprintf(l.file, "\n[qinglong: %d bytes of output are missing here: the log could not be written (%v)]\n", l.dropped(), why)
		l.stored += int64(n)
		return errors.Join(fmt.Errorf("%d bytes of the command's output were not written: %w", l.dropped(), why), l.file.Close())
	}
	l.err = l.file.Close()
	return l.err
}

// cause is err without the path and operation, which the messages around
// it say already.
func cause(err error) error {
	if pe := (*os.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// logMessage says, for the attempt's record, that its log is not whole,
// how many bytes of output it lacks and why: the record is what the Run's
// readers see when not even a marker fitted in the file, or there is no
// file at all.
func logMessage(l *cappedLog) string {
	if l.file == nil {
		return fmt.Sprintf("its log could not be created (%v), so the command ran without one and its %d bytes of output were dropped%s",
			cause(l.err), l.total, spaceHint(l.err))
	}
	return fmt.Sprintf("%d bytes of its output are not in its log: the log could not be written (%v)%s", l.dropped(), cause(l.err), spaceHint(l.err))
}

// spaceHint is what to do about a log the file system refused for want of
// space or inodes.
func spaceHint(err error) string {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return "; free space and inodes on the disk of the log directory (docs/operations.md, \"Logging\")"
	}
	return ""
}
