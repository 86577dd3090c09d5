package sqlitestore

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A command that only reads (runs list, db check) on a full disk, with
// the server stopped, reads the database as it stands: SQLite cannot make
// the -shm file a reader needs and says only "disk I/O error", but with
// no -wal beside it the file holds every commit. With a -wal there (a
// server that died), the refusal says the disk is full, not to check the
// file's permissions.
func TestAReadOnlyOpenOnAFullDiskReadsTheFileOrSaysTheDiskIsFull(t *testing.T) {
	ctx := t.Context()
	disk := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(disk, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", disk, "tmpfs", 0, "size=4m"); err != nil {
		if errors.Is(err, syscall.EPERM) {
			t.Skip("mounting a small disk needs root (CI runs as root)")
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(disk, syscall.MNT_DETACH) })
	path := filepath.Join(disk, "ql.db")
	s, err := Open(ctx, Config{Path: path, NowMs: newClock().NowMs})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("after a clean close the -wal file is still there (%v)", err)
	}
	fillDisk(t, disk)
	if room, known := roomLeft(disk); !known || room >= fullDiskRoom {
		t.Fatalf("the disk was not filled: %d bytes left (known %v)", room, known)
	}

	r, err := OpenReadOnly(ctx, Config{Path: path, NowMs: newClock().NowMs})
	if err != nil {
		t.Fatalf("a read-only open on a full disk with no -wal: %v; want the file read as it stands", err)
	}
	if err := r.ReadyToRead(ctx); err != nil {
		t.Errorf("reading the schema on a full disk: %v", err)
	}
	r.Close()

	// The open above may have left an empty -wal of its own; one with a
	// frame in it is a server's that died.
	if err := os.Truncate(filepath.Join(disk, "filler"), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+"-wal", []byte("a frame"), 0o600); err != nil {
		t.Fatal(err)
	}
	fillDisk(t, disk)
	_, err = OpenReadOnly(ctx, Config{Path: path, NowMs: newClock().NowMs})
	if err == nil || !strings.Contains(err.Error(), "the disk holding "+disk+" is full") || strings.Contains(err.Error(), "check that it exists and is readable") {
		t.Errorf("a read-only open on a full disk beside a -wal: %v; want it to say the disk is full", err)
	}
}

// fillDisk writes zeros to the file filler on disk until no room is left.
func fillDisk(t *testing.T, disk string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(disk, "filler"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := bytes.Repeat([]byte{0}, 4<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			return
		}
	}
}
