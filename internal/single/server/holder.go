package server

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Holder is the record a running server keeps in its data directory's lock
// file: a reader of the database beside it (`ql runs show --data-dir`)
// cannot ask the server, and reads its bound here without taking the lock.
type Holder struct {
	PID int
	// Concurrency is the server's --concurrency: how many commands it runs
	// at once.
	Concurrency int
	// StartedAtMs is when the server took the lock.
	StartedAtMs int64
	// Vacuum is set when the holder is a vacuum (`db vacuum`), which
	// holds the server's lock while it rewrites the database, rather than
	// a server.
	Vacuum bool
	// HandingOver is set when the holder is an export handing the
	// database over (`export --with-state`), which holds the server's
	// lock while it reads the schedule positions.
	HandingOver bool
}

// The record is the pid on the first line, as operators and earlier
// releases read it, then one key=value a line.
const (
	holderConcurrency = "concurrency="
	holderStarted     = "started_ms="
	holderVacuum      = "vacuum=1"
	holderHandingOver = "handover=1"
)

// writeHolder replaces the file's content with h, in one write, so that a
// reader sees the whole record or, in the moment after the truncation,
// none.
func writeHolder(f *os.File, h Holder) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	rec := fmt.Sprintf("%d\n%s%d\n%s%d\n", h.PID, holderConcurrency, h.Concurrency, holderStarted, h.StartedAtMs)
	if h.Vacuum {
		rec += holderVacuum + "\n"
	}
	if h.HandingOver {
		rec += holderHandingOver + "\n"
	}
	_, err := f.WriteAt([]byte(rec), 0)
	return err
}

// readHolder reads the record in the lock file at path and reports whether
// it names a running process. A record of an earlier release has the pid
// alone, Concurrency 0.
func readHolder(path string) (Holder, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Holder{}, false
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(lines[0]))
	if err != nil || pid <= 0 {
		return Holder{}, false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return Holder{}, false
	}
	h := Holder{PID: pid}
	for _, line := range lines[1:] {
		if v, ok := strings.CutPrefix(line, holderConcurrency); ok {
			h.Concurrency, _ = strconv.Atoi(v)
		}
		if v, ok := strings.CutPrefix(line, holderStarted); ok {
			h.StartedAtMs, _ = strconv.ParseInt(v, 10, 64)
		}
		if line == holderVacuum {
			h.Vacuum = true
		}
		if line == holderHandingOver {
			h.HandingOver = true
		}
	}
	return h, true
}

// Served reports whether a server serves the data directory of layout l
// (Serving) and, when one does, its record: known is false while the
// server has not written it yet, or when it names no live process. The
// lock is probed first and the record read after: a record a dead server
// left (killed, its lock dropped by the kernel) is never believed, since
// no server holds the lock then.
func Served(l Layout) (h Holder, known, serving bool, err error) {
	if serving, err = Serving(l); err != nil || !serving {
		return Holder{}, false, serving, err
	}
	h, known = readHolder(l.Lock)
	return h, known && h.Concurrency > 0, true, nil
}
