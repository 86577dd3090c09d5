// Package zombie has a command leave a dead descendant for its runner to
// collect: one that left the command's process group for a group of its
// own, in the runner's session (as `set -m; cmd &` or a daemon that forks
// without setsid does), and died while the command's main process, which
// never waits for it, still ran. Once the main process ends, the zombie is
// re-parented to the runner (a child subreaper), which alone can collect
// it. Tests of the standalone executor and of the worker share it.
package zombie

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// wait bounds each step: the command's start on a loaded machine, the
// runner's reaping.
const wait = time.Minute

// Left is the descendant a command made by Script leaves.
type Left struct {
	dir string
	// PID is the descendant's, once Dead returned.
	PID   int
	start string
}

// New prepares the files Script's command and the test talk through.
func New(t *testing.T) *Left {
	t.Helper()
	l := &Left{dir: t.TempDir()}
	for _, fifo := range []string{"die", "release"} {
		if err := syscall.Mkfifo(filepath.Join(l.dir, fifo), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// Script is the command, for /bin/sh: its main process becomes bash,
// which starts the descendant in a group of its own (job control), then
// becomes cat, which waits for Release and never collects a child.
func (l *Left) Script() string {
	return fmt.Sprintf(`exec /bin/bash -c 'set -m; cat %[1]s/die & echo $! > %[1]s/pid; exec cat %[1]s/release'`, l.dir)
}

// Dead has the descendant exit once the main process is cat, and returns
// when it is a zombie held by the main process: it left the command's
// group, and nothing collects it yet.
func (l *Left) Dead(t *testing.T) {
	t.Helper()
	var fields []string
	until(t, "the command to start its descendant", func() bool {
		b, err := os.ReadFile(filepath.Join(l.dir, "pid"))
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			return false
		}
		l.PID, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	t.Cleanup(func() { _ = syscall.Kill(l.PID, syscall.SIGKILL) })
	until(t, "the command's main process to become cat", func() bool {
		var err error
		fields, err = stat(l.PID)
		if err != nil {
			t.Fatalf("the descendant %d is gone before it was told to exit: %v", l.PID, err)
		}
		comm, err := os.ReadFile("/proc/" + fields[1] + "/comm")
		return err == nil && string(comm) == "cat\n"
	})
	main := fields[1]
	mainGroup, err := stat(atoi(t, main))
	if err != nil {
		t.Fatal(err)
	}
	if fields[2] == mainGroup[2] {
		t.Fatalf("the descendant %d is in its command's process group %s; the test needs one that left it", l.PID, fields[2])
	}
	if sid, err := unix.Getsid(0); err != nil || fields[3] != strconv.Itoa(sid) {
		t.Fatalf("the descendant %d is in session %s, not the runner's (%d, %v); the test needs one that stayed in it", l.PID, fields[3], sid, err)
	}
	open(t, filepath.Join(l.dir, "die"))
	until(t, "the descendant to die", func() bool {
		fields, err = stat(l.PID)
		return err == nil && fields[0] == "Z"
	})
	if fields[1] != main {
		t.Fatalf("the dead descendant %d has parent %s; want the command's main process %s", l.PID, fields[1], main)
	}
	l.start = fields[19]
}

// Release ends the command's main process (it exits 0): the zombie is
// re-parented to the runner.
func (l *Left) Release(t *testing.T) {
	t.Helper()
	open(t, filepath.Join(l.dir, "release"))
}

// RequireReaped fails unless the dead descendant is collected: gone from
// /proc, its pid free or another process's.
func (l *Left) RequireReaped(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		fields, err := stat(l.PID)
		if err != nil || fields[19] != l.start {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dead descendant %d is still there (state %s, parent %s, this process %d): nothing collected it", l.PID, fields[0], fields[1], os.Getpid())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// open opens fifo for writing once its reader has it open, and closes it:
// the reader sees the end of its input.
func open(t *testing.T, fifo string) {
	t.Helper()
	until(t, "a reader of "+fifo, func() bool {
		f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if errors.Is(err, syscall.ENXIO) {
			return false
		}
		if err != nil {
			t.Fatal(err)
		}
		return f.Close() == nil
	})
}

// stat returns pid's /proc stat fields from the state on: state [0],
// parent [1], group [2], session [3], start time [19].
func stat(pid int) ([]string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, err
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(fields) < 20 {
		return nil, fmt.Errorf("/proc/%d/stat has %d fields after the name", pid, len(fields))
	}
	return fields, nil
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
