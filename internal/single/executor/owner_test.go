package executor

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
)

func TestAnOwnerIsAliveExactlyWhileItHoldsItsLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o, err := AcquireOwner(dir)
	if err != nil {
		t.Fatal(err)
	}
	if gone, err := ownerGone(dir, o.ID); err != nil || gone {
		t.Fatalf("held owner reported gone=%v, %v", gone, err)
	}
	if err := o.Release(); err != nil {
		t.Fatal(err)
	}
	if gone, err := ownerGone(dir, o.ID); err != nil || !gone {
		t.Fatalf("released owner reported gone=%v, %v", gone, err)
	}
	if gone, err := ownerGone(dir, ids.New()); err != nil || !gone {
		t.Fatalf("an owner without a lock file reported gone=%v, %v", gone, err)
	}
	if gone, err := ownerGone(dir, "../../etc/passwd"); err != nil || !gone {
		t.Fatalf("a malformed owner id reported gone=%v, %v", gone, err)
	}
}

// A crashed owner's lock file is removed by the next recovery; a live
// owner's is kept.
func TestRecoverySweepsOnlyTheLockFilesOfGoneOwners(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	dir := filepath.Join(h.dir, "owners")
	alive, err := AcquireOwner(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer alive.Release()
	crashed, err := AcquireOwner(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Closing without Release is what a crash leaves: the file, unlocked.
	if err := crashed.file.Close(); err != nil {
		t.Fatal(err)
	}
	self, err := AcquireOwner(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer self.Release()
	if _, err := Recover(t.Context(), h.store, self); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{alive.ID: true, crashed.ID: false, self.ID: true} {
		_, err := os.Stat(filepath.Join(dir, id+".lock"))
		if exists := err == nil; exists != want {
			t.Fatalf("lock file of %s exists=%v after recovery, want %v", id, exists, want)
		}
	}
}

// Serving says a server runs on the directory exactly while a live owner
// holds its lock there: not for a missing directory, nor for a crashed
// owner's file left behind, nor after the owner released it.
func TestServingIsTrueExactlyWhileAnOwnerHoldsItsLock(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "owners")
	if live, err := Serving(dir); err != nil || live {
		t.Fatalf("no owner directory: serving=%v, %v", live, err)
	}
	crashed, err := AcquireOwner(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := crashed.file.Close(); err != nil {
		t.Fatal(err)
	}
	if live, err := Serving(dir); err != nil || live {
		t.Fatalf("only a crashed owner's file: serving=%v, %v", live, err)
	}
	o, err := AcquireOwner(dir)
	if err != nil {
		t.Fatal(err)
	}
	if live, err := Serving(dir); err != nil || !live {
		t.Fatalf("a live owner: serving=%v, %v", live, err)
	}
	if err := o.Release(); err != nil {
		t.Fatal(err)
	}
	if live, err := Serving(dir); err != nil || live {
		t.Fatalf("after the owner released its lock: serving=%v, %v", live, err)
	}
	if _, err := os.Stat(filepath.Join(dir, crashed.ID+".lock")); err != nil {
		t.Fatalf("Serving must only probe, yet the crashed owner's file is gone: %v", err)
	}
}

// A recovery that meets a probe's lock on a dead owner's file (a `triggers
// run` asking whether a server runs, at the moment a server starts) still
// finds the owner gone and loses its attempt.
func TestARecoveryBesideAServingProbeStillLosesTheDeadOwnersAttempt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	dir := filepath.Join(h.dir, "owners")
	dead, err := AcquireOwner(dir)
	if err != nil {
		t.Fatal(err)
	}
	runID := h.admit(t, shell("true", time.Minute))
	if _, _, _, err := h.store.AttemptStart(t.Context(), h.detail(t, runID).Attempts[0].ID, dead.ID, ""); err != nil {
		t.Fatal(err)
	}
	if err := dead.file.Close(); err != nil {
		t.Fatal(err)
	}
	probe, err := os.Open(filepath.Join(dir, dead.ID+".lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	if err := syscall.Flock(int(probe.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	self, err := AcquireOwner(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer self.Release()
	rec, err := Recover(t.Context(), h.store, self)
	if err != nil || rec.Lost != 1 {
		t.Fatalf("recover beside a probe: %+v, %v; want the dead owner's attempt lost", rec, err)
	}
	if got := h.detail(t, runID).Run.State; got != run.Lost {
		t.Fatalf("the dead owner's Run is %s, want lost", got)
	}
}
