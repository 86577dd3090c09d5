package filetemplate

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// Every copy holds exactly what the one preparation wrote, is its owner's
// alone, and is a file of its own: writing to one changes no later copy.
// The preparation's directory is gone once it is read. (Each test here
// keys its template by its own name: the registry outlives the test.)
func TestEveryCopyIsTheOnePreparationsFileAndPrivate(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	var preparedAt string
	want := []byte("prepared once")
	prepare := func(_ context.Context, path string) error {
		calls.Add(1)
		preparedAt = path
		return os.WriteFile(path, want, 0o644)
	}
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
	CopyTo(t, t.Name(), prepare, first)
	if err := os.WriteFile(first, []byte("changed by its test"), 0o600); err != nil {
		t.Fatal(err)
	}
	CopyTo(t, t.Name(), prepare, second)
	if got, err := os.ReadFile(second); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the second copy holds %q (%v), want %q", got, err, want)
	}
	for _, path := range []string{first, second} {
		info, err := os.Stat(path)
		if err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("%s: mode %v (%v), want 0600", path, info.Mode().Perm(), err)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("prepared %d times for two copies, want once", n)
	}
	if _, err := os.Stat(filepath.Dir(preparedAt)); !os.IsNotExist(err) {
		t.Fatalf("the preparation's directory %s is still there (%v)", filepath.Dir(preparedAt), err)
	}
}

// A copy never replaces a file the test already made at its path.
func TestACopyNeverReplacesAnExistingFile(t *testing.T) {
	t.Parallel()
	dst := filepath.Join(t.TempDir(), "taken")
	if err := os.WriteFile(dst, []byte("the test's own"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := copyTo(t.Name(), func(_ context.Context, path string) error { return os.WriteFile(path, []byte("template"), 0o600) }, dst)
	if !errors.Is(err, os.ErrExist) {
		t.Fatalf("copy over an existing file: %v, want an error wrapping os.ErrExist", err)
	}
	if got, _ := os.ReadFile(dst); string(got) != "the test's own" {
		t.Fatalf("the existing file now holds %q", got)
	}
}

// A preparation that leaves content beside its file (a SQLite database
// not closed, its write-ahead log unmerged) fails, naming what it left,
// rather than handing out copies that lack that content.
func TestAPreparationThatLeavesContentBesideItsFileFails(t *testing.T) {
	t.Parallel()
	prepare := func(_ context.Context, path string) error {
		if err := os.WriteFile(path, []byte("main file"), 0o600); err != nil {
			return err
		}
		return os.WriteFile(path+"-wal", []byte("frames not yet in the main file"), 0o600)
	}
	err := copyTo(t.Name(), prepare, filepath.Join(t.TempDir(), "copy"))
	if err == nil || !strings.Contains(err.Error(), "template-wal") {
		t.Fatalf("preparation leaving a WAL: %v, want an error naming template-wal", err)
	}
}

// A failed preparation is not retried per test: every test that asks for
// the key gets its error.
func TestAFailedPreparationFailsEveryCopyWithItsError(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	broken := errors.New("migration 0007 does not apply")
	prepare := func(context.Context, string) error {
		calls.Add(1)
		return broken
	}
	dir := t.TempDir()
	for _, name := range []string{"a", "b"} {
		if err := copyTo(t.Name(), prepare, filepath.Join(dir, name)); !errors.Is(err, broken) {
			t.Fatalf("copy %s: %v, want the preparation's error", name, err)
		}
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Fatalf("copy %s exists after a failed preparation (%v)", name, err)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("prepared %d times, want once", n)
	}
}
