// Package databackup is a single-node server's backup as one archive sent
// over HTTP (the console's Backup page): what `ql backup DIR` writes, as a
// gzipped tar to unpack into an empty directory and serve as a data
// directory. A server makes one at a time; the package names the refusals
// and the audit record, the single-node server makes the archive.
package databackup

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Source makes the backup archives of one server's data directory.
type Source interface {
	// Estimate is what an archive made now would hold, about: the files'
	// sizes as they are, before compression.
	Estimate(ctx context.Context) (Estimate, error)
	// Name is the file name an archive begun now is saved under: what a
	// HEAD of the download says without making a copy.
	Name() string
	// Begin takes the server's one backup, checks that the data
	// directory's disk can hold the database's copy, and takes that copy:
	// everything that can be refused is refused here, before a byte of
	// the archive is written. The Archive must be closed.
	Begin(ctx context.Context) (Archive, error)
}

// Estimate is what an archive would hold, by the files' sizes now.
type Estimate struct {
	// DataDir is the data directory, absolute.
	DataDir      string
	DBBytes      int64
	Logs         int
	LogBytes     int64
	Secrets      bool
	SecretsBytes int64
}

// Bytes is the whole estimate, before compression.
func (e Estimate) Bytes() int64 { return e.DBBytes + e.LogBytes + e.SecretsBytes }

// Archive is one backup on its way: the database's copy taken, the logs
// and the secrets still to read.
type Archive interface {
	// Name is the file name to save the archive under.
	Name() string
	// WriteTo writes the whole archive to w and returns the bytes written.
	WriteTo(ctx context.Context, w io.Writer) (int64, error)
	// Close removes the database's copy and lets the next backup begin;
	// it is what leaves nothing behind, however the writing ended. A
	// second Close does nothing.
	Close() error
}

// ArchiveComment is the gzip header's comment of every backup archive:
// what `backup --archive FILE` knows a FILE.partial of its own by, left
// by a run killed before its end.
const ArchiveComment = "qinglong backup archive"

// The reasons of a backup refused before it began.
const (
	// RefusalBusy: another backup of the same server is being made.
	RefusalBusy qlerror.Reason = "backup_in_progress"
	// RefusalNoSpace: the data directory's disk cannot hold the
	// database's copy the archive is made from.
	RefusalNoSpace qlerror.Reason = "backup_no_space"
)

// Busy is the refusal of a backup while another of the same server is
// being made: two at once would hold two copies of the database on its
// disk, and each would take twice as long.
func Busy() *qlerror.Error {
	return qlerror.New(qlerror.Conflict, "another backup of this server is being made (one at a time); wait until its download ends, then try again").
		Because(RefusalBusy)
}

// NoSpace is the refusal of a backup whose database copy, need bytes at
// most, would not fit in the free bytes of the disk holding dir.
func NoSpace(dir string, need, free int64) *qlerror.Error {
	n, f := Size(need), Size(free)
	return qlerror.New(qlerror.FailedPrecondition, "the disk holding %s has %s free, and the backup first copies the database there (up to %s): nothing was copied; "+
		"free space on that disk, or write the backup to another disk with `ql backup DIR` on the server's host", dir, f, n).
		Because(RefusalNoSpace, "dir", dir, "need", n, "free", f)
}

// Downloaded is the audit record of an archive sent to actor: its name,
// how many bytes went and how long it took, and whether it went whole
// (a browser that went away cut it off); never what it held.
func Downloaded(actor, name string, sent int64, took time.Duration, whole bool) audit.Entry {
	note := fmt.Sprintf("%s sent in %s", Size(sent), took.Round(time.Millisecond))
	if !whole {
		note = fmt.Sprintf("cut off after %s, in %s", Size(sent), took.Round(time.Millisecond))
	}
	return audit.Entry{Actor: actor, Action: audit.BackupDownloaded, ObjectKind: audit.KindBackup, ObjectID: name, ObjectName: name, Note: note}
}

// Size is n bytes as people read a file's size: B, KiB, MiB or GiB.
func Size(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, suffix := float64(n)/unit, "KiB"
	for _, s := range []string{"MiB", "GiB", "TiB"} {
		if v < unit {
			break
		}
		v, suffix = v/unit, s
	}
	return fmt.Sprintf("%.1f %s", v, suffix)
}
