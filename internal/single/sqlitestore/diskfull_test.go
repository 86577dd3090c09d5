package sqlitestore

import (
	"errors"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A database that cannot be opened or created on a disk with less than a
// MiB left says the disk is full and to free space on it — SQLite's own
// words there are a bare "disk I/O error" — and otherwise names the
// directory's permissions as before; either way it is unavailable, a
// failure a later try may pass.
func TestADatabaseThatCannotBeOpenedOnAFullDiskSaysTheDiskIsFull(t *testing.T) {
	t.Parallel()
	ioErr := errors.New("disk I/O error (4874)")
	for _, c := range []struct {
		room       uint64
		known      bool
		want, dont string
	}{
		{0, true, "open SQLite database /srv/ql/qinglong.db: the disk holding /srv/ql is full (0 KiB free), and SQLite needs room beside the file for its -wal and -shm files even to read it: free space on that disk and try again: disk I/O error (4874)", "writable"},
		{512 << 10, true, "the disk holding /srv/ql is full (512 KiB free)", "writable"},
		{fullDiskRoom, true, "open SQLite database /srv/ql/qinglong.db; check that the directory exists and is writable", "full"},
		{0, false, "check that the directory exists and is writable", "full"},
	} {
		err := openRefused(ioErr, "open", "/srv/ql/qinglong.db", c.room, c.known)
		if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.dont) || qlerror.CodeOf(err) != qlerror.Unavailable {
			t.Errorf("room %d (known %v): %q (%s), want it to say %q and not %q, unavailable", c.room, c.known, err, qlerror.CodeOf(err), c.want, c.dont)
		}
	}
	if room, known := roomLeft(t.TempDir()); !known || room == 0 {
		t.Errorf("the room left on the test's own disk reads %d (known %v), want it read", room, known)
	}
}
