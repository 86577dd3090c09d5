package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/qinglong/qinglong/internal/core/run"
)

// openPTY opens a pseudo-terminal pair and returns its terminal end and the
// end that reads what was written to it.
func openPTY(t *testing.T) (tty, master *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pseudo-terminal number: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty, master
}

// Files, pipes and buffers get the log byte for byte: only a terminal is
// protected.
func TestOnlyATerminalIsEscapedFor(t *testing.T) {
	t.Parallel()
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for name, out := range map[string]io.Writer{"buffer": &bytes.Buffer{}, "file": f, "pipe": w} {
		if isTerminal(out) {
			t.Errorf("%s taken for a terminal", name)
		}
	}
	tty, _ := openPTY(t)
	if !isTerminal(tty) {
		t.Fatal("a pseudo-terminal was not recognised")
	}
}

// `ql runs logs` shows a task's escape sequences as text on a terminal and
// passes them through unchanged to anything else.
func TestRunLogsEscapesOnlyForATerminal(t *testing.T) {
	t.Parallel()
	const log = "done\x1b]0;owned\x07\x1b[2J\n"
	src := func(_ context.Context, _ attemptRef, offset int64, w io.Writer) (int64, bool, error) {
		n, err := io.WriteString(w, log)
		return offset + int64(n), false, err
	}
	read := func(w io.Writer) error {
		l := logFollower{log: src, attemptID: "a1", out: w}
		_, err := l.read(t.Context(), false)
		return err
	}
	var raw bytes.Buffer
	if err := copyLog(&raw, read); err != nil || raw.String() != log {
		t.Fatalf("into a buffer: %q, %v; want the bytes unchanged", raw.String(), err)
	}
	tty, master := openPTY(t)
	if err := copyLog(tty, read); err != nil {
		t.Fatal(err)
	}
	const want = `done\x1b]0;owned\x07\x1b[2J`
	got := make(chan string, 1)
	go func() {
		var all []byte
		buf := make([]byte, 256)
		for !bytes.Contains(all, []byte("\n")) {
			n, err := master.Read(buf)
			all = append(all, buf[:n]...)
			if err != nil {
				break
			}
		}
		got <- string(all)
	}()
	select {
	case s := <-got:
		if !strings.HasPrefix(s, want) || strings.Contains(s, "\x1b") {
			t.Fatalf("the terminal received %q; want %s as visible text", s, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the line did not reach the terminal within 10s")
	}
}

// endedRun is a database holding one succeeded Run with one attempt.
type endedRun struct{ run.Reader }

func (endedRun) RunGet(_ context.Context, id string) (run.Detail, error) {
	started := int64(1)
	return run.Detail{Run: run.Run{ID: id, State: run.Succeeded},
		Attempts: []run.Attempt{{ID: "a1", RunID: id, Number: 1, State: run.AttemptSucceeded, StartedAtMs: &started}}}, nil
}

// On a terminal, the follower's closing line starts a line of its own
// after output whose last line has no newline, rather than trailing it.
func TestAFollowersLastLineOnATerminalStartsALineOfItsOwn(t *testing.T) {
	t.Parallel()
	src := func(_ context.Context, _ attemptRef, offset int64, w io.Writer) (int64, bool, error) {
		if offset > 0 {
			return offset, false, nil
		}
		n, err := io.WriteString(w, "no newline at the end")
		return offset + int64(n), false, err
	}
	tty, master := openPTY(t)
	got := make(chan string, 1)
	go func() {
		var all []byte
		buf := make([]byte, 256)
		for !bytes.Contains(all, []byte("succeeded)")) {
			n, err := master.Read(buf)
			all = append(all, buf[:n]...)
			if err != nil {
				break
			}
		}
		got <- string(all)
	}()
	err := copyLog(tty, func(w io.Writer) error {
		l := logFollower{runs: endedRun{}, log: src, from: "the database", runID: "r1", out: w, errOut: tty}
		return l.follow(t.Context())
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if want := "no newline at the end\r\n(run r1 ended: succeeded)"; !strings.Contains(s, want) {
			t.Fatalf("the terminal showed %q; want %q", s, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the follower's last line did not reach the terminal within 10s")
	}
}
