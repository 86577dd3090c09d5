package executor

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
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
