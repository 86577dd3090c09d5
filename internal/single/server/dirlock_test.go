package server

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// holdShared holds path's lock shared, as Serving does for a moment, until
// the returned function drops it.
func holdShared(t *testing.T, path string) func() {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	return func() { f.Close() }
}

// A status probe never makes a server fail to start: a server starting
// while a probe holds the data directory's lock shared waits for it and
// takes the lock, and Serving then finds the directory served; before,
// with the lock file there but no server, it finds it not served.
func TestAStatusProbeNeverMakesAStartingServerFail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := LayoutOf(dir)
	if serving, err := Serving(l); err != nil || serving {
		t.Fatalf("Serving with no lock file: %v, %v; want false", serving, err)
	}
	if err := os.WriteFile(l.Lock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if serving, err := Serving(l); err != nil || serving {
		t.Fatalf("Serving with a lock file no server holds: %v, %v; want false", serving, err)
	}
	release := holdShared(t, l.Lock)
	go func() {
		time.Sleep(300 * time.Millisecond)
		release()
	}()
	lock, err := lockDataDir(dir, l.Lock, Holder{Concurrency: 1})
	if err != nil {
		t.Fatalf("a server starting beside a probe: %v; want it to take the lock once the probe is done", err)
	}
	defer lock.release() //nolint:errcheck // the test's directory goes with it
	if serving, err := Serving(l); err != nil || !serving {
		t.Fatalf("Serving beside a server: %v, %v; want true", serving, err)
	}
}

// A second server is still refused at once: the lock held exclusively is
// a server's, which no wait for a probe outlasts.
func TestASecondServerIsRefusedWithoutWaitingForTheFirst(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := LayoutOf(dir)
	first, err := lockDataDir(dir, l.Lock, Holder{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer first.release() //nolint:errcheck // the test's directory goes with it
	start := time.Now()
	if _, err := lockDataDir(dir, l.Lock, Holder{Concurrency: 1}); err == nil || !strings.Contains(err.Error(), "only one server may use a data directory") {
		t.Fatalf("a second server beside the first: %v; want it refused as one", err)
	}
	// A wait as for a probe lasts dirLockWait: the refusal comes before it,
	// however slow the machine, only if the server never waited.
	if took := time.Since(start); took >= dirLockWait {
		t.Fatalf("the second server was refused after %s; want at once, not after waiting %s as for a probe", took, dirLockWait)
	}
}

// A stopped server's lock is free at once, even while another process
// still holds a copy of the lock file's descriptor, as one forked in the
// moment of the stop does until it executes its program: the next server
// on the directory starts instead of being refused as a second one.
func TestAStoppedServersLockIsFreeWhileAForkedProcessStillHoldsItsDescriptor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := LayoutOf(dir)
	first, err := lockDataDir(dir, l.Lock, Holder{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	// ExtraFiles gives the child the very open file description the lock
	// is on, which is what a fork copies.
	holder := exec.Command("sleep", "60")
	holder.ExtraFiles = []*os.File{first.file}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = holder.Process.Kill()
		_ = holder.Wait()
	})
	if err := first.release(); err != nil {
		t.Fatal(err)
	}
	next, err := lockDataDir(dir, l.Lock, Holder{Concurrency: 1})
	if err != nil {
		t.Fatalf("a server starting after the first one's stop returned: %v; want it to take the lock", err)
	}
	defer next.release() //nolint:errcheck // the test's directory goes with it
}
