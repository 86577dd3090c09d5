package executor

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A command whose log file cannot be created (a disk out of space or
// inodes; here a directory in the file's place) runs all the same, its
// output counted and dropped: the attempt ends as its command did, marked
// truncated, its message saying its log could not be created, why and how
// many bytes were dropped, and the operator is told. Before, every
// occurrence failed log_unwritable without running, with no message.
func TestACommandWhoseLogCannotBeCreatedRunsAndItsAttemptSaysWhy(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ran := filepath.Join(h.dir, "ran")
	runID := h.admit(t, shell("echo hello; touch "+ran, time.Minute))
	var attemptID string
	if err := h.raw.QueryRow(`SELECT id FROM attempts WHERE run_id = ?`, runID).Scan(&attemptID); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(h.dir, "logs", attemptID+".log"), 0o700); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var warned []string
	d, sig := h.dispatcher(t, dispatcherOpts{onError: func(err error) {
		mu.Lock()
		defer mu.Unlock()
		warned = append(warned, err.Error())
	}})
	d.Wake()
	sig.wait(t, 1)
	if _, err := os.Stat(ran); err != nil {
		t.Fatalf("the command did not run: %v", err)
	}
	got := h.detail(t, runID)
	a := got.Attempts[0]
	if got.Run.State != run.Succeeded || a.State != run.AttemptSucceeded || a.ErrorCode != "" || !a.LogTruncated || a.LogBytes != 0 {
		t.Fatalf("run %s, attempt %+v; want both succeeded, no error code, the log truncated and empty", got.Run.State, a)
	}
	if !strings.Contains(a.ErrorMessage, "its log could not be created (file exists)") || !strings.Contains(a.ErrorMessage, "its 6 bytes of output were dropped") {
		t.Fatalf("the attempt's message is %q; want it to say its log could not be created, why, and the 6 bytes dropped", a.ErrorMessage)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warned) != 1 || !strings.Contains(warned[0], "its command runs without a log") {
		t.Fatalf("the operator was told %q; want once that the command runs without a log", warned)
	}
}

// Output a full disk refused is counted whole, past the log cap too, and
// the log is marked truncated at the first refused byte (told to the store
// as a cut at the cap is): before, the count stopped at the cap, and a log
// cut by a full disk alone read as whole. The attempt's message says the
// count and why, as the file may have no room even for its marker.
func TestOutputAFullDiskDroppedIsCountedWholeAndMarksTheAttemptTruncated(t *testing.T) {
	t.Parallel()
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	var cuts atomic.Int32
	l := &cappedLog{file: full, cap: 1024, cut: func() { cuts.Add(1) }}
	for range 3 {
		if n, err := l.Write(bytes.Repeat([]byte("x"), 1000)); n != 1000 || err != nil {
			t.Fatalf("a write to a full disk returned %d, %v; want all of it taken, no error", n, err)
		}
		if !l.truncated || cuts.Load() != 1 {
			t.Fatalf("after a refused write: truncated %v, cut told %d times; want truncated, told once", l.truncated, cuts.Load())
		}
	}
	err = l.Close()
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "3000 bytes of the command's output were not written") {
		t.Fatalf("Close = %v, want ENOSPC with the 3000 bytes missing", err)
	}
	if msg := logMessage(l); !strings.Contains(msg, "3000 bytes of its output are not in its log") || !strings.Contains(msg, "no space left on device") ||
		!strings.Contains(msg, "free space and inodes") {
		t.Fatalf("the attempt's message is %q; want the 3000 bytes, why, and what to do", msg)
	}
}

// A log passing its cap with room on the disk is counted as before: the
// bytes over the cap are dropped, not missing for want of space.
func TestALogCutAtItsCapOnlyCountsNoBytesMissing(t *testing.T) {
	t.Parallel()
	l, err := createLog(filepath.Join(t.TempDir(), "a.log"), 1024, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A capped log takes the whole write, as a pipe's reader must.
	if n, err := l.Write(bytes.Repeat([]byte("x"), 3000)); n != 3000 || err != nil {
		t.Fatalf("Write = %d, %v; want all 3000 bytes taken", n, err)
	}
	if err := l.Close(); err != nil || !l.truncated || l.dropped() != 3000-1024 {
		t.Fatalf("Close = %v, truncated %v, %d dropped; want no error, truncated, 1976 dropped", err, l.truncated, l.dropped())
	}
}

// Logs growing by LogsGrownEvery tell LogsGrown (the server wakes log
// retention with it) while the command still writes, so the cap holds
// between retention's rounds — and no more than once per that growth, never
// once per write.
func TestLogsGrowingByTheirShareOfTheCapWakeRetentionBetweenItsRounds(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	release := filepath.Join(h.dir, "release")
	runID := h.admit(t, shell(`head -c 100000 /dev/zero | tr '\0' x; until [ -e `+release+` ]; do sleep 0.05; done`, time.Minute))
	var grown atomic.Int32
	d, sig := h.dispatcher(t, dispatcherOpts{logsGrown: func() { grown.Add(1) }, logsGrownEvery: 16 << 10})
	d.Wake()
	deadline := time.Now().Add(30 * time.Second)
	for grown.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("100 KB of output told LogsGrown nothing while the command ran")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sig.wait(t, 1)
	if n, most := grown.Load(), int32((100000+4096)/(16<<10)); n > most {
		t.Fatalf("LogsGrown was told %d times for 100 KB and a new file, want at most %d (once per 16 KiB)", n, most)
	}
	if a := h.detail(t, runID).Attempts[0]; a.State != run.AttemptSucceeded {
		t.Fatalf("attempt %+v, want succeeded", a)
	}
}
