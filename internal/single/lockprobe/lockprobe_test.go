package lockprobe

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A lock file is held while some open description of it holds an
// exclusive flock, and only then; probing it leaves the holder's lock in
// force and a missing file reads as not held.
func TestALockFileIsHeldOnlyWhileLockedExclusively(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.lock")
	if held, err := Held(path); held || err != nil {
		t.Fatalf("missing file: held %v, %v; want not held", held, err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if held, err := Held(path); held || err != nil {
		t.Fatalf("unlocked file: held %v, %v; want not held", held, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if held, err := Held(path); !held || err != nil {
			t.Fatalf("locked file: held %v, %v; want held, and still held after a probe", held, err)
		}
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	if held, err := Held(path); held || err != nil {
		t.Fatalf("unlocked again: held %v, %v; want not held", held, err)
	}
}

// A lock file that is a symbolic link is not followed: the probe refuses
// it rather than report on a file elsewhere.
func TestALockFileThatIsASymbolicLinkIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "x.lock")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Held(link); err == nil {
		t.Fatal("a symbolic link was probed; want it refused")
	}
}
