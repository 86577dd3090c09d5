package journal

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// holdWriteLock takes the journal's write lock from a connection of its
// own, as another process opening the file would, until release.
func holdWriteLock(t *testing.T, dir string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, FileName)+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE offers SET answered = answered`); err != nil {
		t.Fatal(err)
	}
	return func() {
		_ = tx.Rollback()
		_ = db.Close()
	}
}

// A write the journal could not make while another process held its write
// lock is refused for now, kept nowhere, and taken when written again once
// the lock is free; a write the journal refuses for good (a record past
// that state) is not refused for now, so nothing waits for it.
func TestAWriteTheJournalRefusesForNowIsTakenWhenWrittenAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	release := holdWriteLock(t, dir)
	_, err = j.NewOffer(t.Context())
	if err == nil || !Refused(err) {
		release()
		t.Fatalf("an offer journaled while another process held the write lock: %v; want it refused for now", err)
	}
	if why := j.Why(err); !strings.Contains(why, "another process holds the write lock of the journal") {
		t.Errorf("the refusal is explained %q; want it to name the write lock held", why)
	}
	release()
	var offers int
	if err := j.db.QueryRow(`SELECT count(*) FROM offers`).Scan(&offers); err != nil || offers != 0 {
		t.Fatalf("the refused offer left %d records (%v); want none", offers, err)
	}
	if _, err := j.NewOffer(t.Context()); err != nil {
		t.Fatalf("the offer written again once the lock was free: %v", err)
	}
	if err := j.Done(t.Context(), "no-such-attempt", "terminal"); err == nil || Refused(err) {
		t.Errorf("the end of a missing attempt: %v; want a refusal for good, not for now", err)
	}
}

// A journal that cannot be opened on a full disk says the disk holding the
// data directory is full, what it has left, and to free space and start the
// worker again, where it said the kernel's or SQLite's bare words (no space
// left on device, disk I/O error) and, for the file, that it might be
// damaged; any other failure to open it is left as it was.
func TestAJournalThatCannotBeOpenedOnAFullDiskSaysTheDiskIsFull(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	full := fmt.Errorf("write the worker lock %s: %w", dir, &os.PathError{Op: "write", Path: filepath.Join(dir, lockName), Err: syscall.ENOSPC})
	err := openFailed(dir, full)
	for _, want := range []string{"the disk holding the worker's data directory " + dir + " is full (", "KiB free): free space on that disk, then start the worker again", "no space left on device"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("open on a full disk: %q; want it to say %q", err, want)
		}
	}
	if qlerror.CodeOf(err) != qlerror.Unavailable {
		t.Errorf("open on a full disk is %s; want unavailable, a failure a later start may pass", qlerror.CodeOf(err))
	}
	other := errors.New("open the worker journal: file is not a database (26)")
	if got := openFailed(dir, other); got != other { //nolint:errorlint // the very error is passed on
		t.Errorf("open failing on a disk with room: %q; want the error as it was", got)
	}
}
