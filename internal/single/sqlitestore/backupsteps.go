package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"time"

	sqlite "modernc.org/sqlite"
)

// backupPace is how a backup shares the disk with the server it copies:
// pages copied a step, and the rest after a step that took took.
type backupPace struct {
	pages int32
	rest  func(took time.Duration) time.Duration
}

// stepPages is a backup's step: 4 MiB of 4 KiB pages, a few tens of
// milliseconds of a disk's time.
const stepPages = 1024

// maxStepRest bounds the rest after one step, so a step slowed by
// something else (a swap, a disk's hiccup) does not stall the copy for
// long after.
const maxStepRest = time.Second

// sharedPace rests as long as each step took (its sync included), up to
// maxStepRest: a backup takes at most about half of the disk's time and
// of one core, where one statement copying every page (VACUUM INTO, as
// backups did) took all it could for as long as it ran, rebuilding every
// table and index on the way, and the server's commits meanwhile
// contended with it.
var sharedPace = backupPace{pages: stepPages, rest: func(took time.Duration) time.Duration { return min(took, maxStepRest) }}

// backuper is the driver connection's online backup (sqlite3_backup).
type backuper interface {
	NewBackup(dstURI string) (*sqlite.Backup, error)
}

// copyInSteps copies the database src reads into dest, a new empty file,
// with SQLite's online backup, pace.pages pages a step, resting between
// steps. Every step reads in one read transaction begun first, so the copy
// is the database as of that instant however many commits land between
// two steps (a step outside it would read a newer database, and SQLite
// would start the copy over at each commit; a server admitting every few
// milliseconds would keep it from ever ending). In WAL mode a read never
// blocks the server's writer, and no step writes to the source; the read
// transaction keeps checkpoints from reaching the -wal file's end until
// it ends, as any consistent copy's read does. It returns when the copy
// began: every commit before is in it. afterStep, when not nil, runs
// between steps (tests commit there).
func copyInSteps(ctx context.Context, src *sql.DB, dest string, pace backupPace, afterStep func()) (snapshotMs int64, err error) {
	conn, err := src.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close() //nolint:errcheck // the read transaction's end is the error that counts
	if _, err := conn.ExecContext(ctx, qBackupReadBegin); err != nil {
		return 0, err
	}
	defer func() {
		if _, endErr := conn.ExecContext(context.WithoutCancel(ctx), qBackupReadEnd); err == nil {
			err = endErr
		}
	}()
	snapshotMs = time.Now().UnixMilli()
	var objects int
	if err := conn.QueryRowContext(ctx, qBackupPinSnapshot).Scan(&objects); err != nil {
		return 0, err
	}
	err = conn.Raw(func(dc any) error {
		b, ok := dc.(backuper)
		if !ok {
			return errors.New("the SQLite driver offers no online backup")
		}
		bk, err := b.NewBackup("file:" + (&url.URL{Path: dest}).EscapedPath())
		if err != nil {
			return err
		}
		// Each step's pages go to disk before the next: the kernel then
		// never holds more than a step of the copy unwritten, which the
		// server's own syncs (a checkpoint, a durable commit) would wait
		// behind, and a slow disk lengthens the step and so the rest.
		written, err := os.Open(dest)
		if err != nil {
			return errors.Join(err, bk.Finish())
		}
		defer written.Close() //nolint:errcheck // only synced
		for {
			start := time.Now()
			more, err := bk.Step(pace.pages)
			if err == nil && more {
				err = written.Sync()
			}
			if err != nil || !more {
				return errors.Join(err, bk.Finish())
			}
			if afterStep != nil {
				afterStep()
			}
			if err := rest(ctx, pace.rest(time.Since(start))); err != nil {
				return errors.Join(err, bk.Finish())
			}
		}
	})
	return snapshotMs, err
}

// rest waits d, or until ctx ends.
func rest(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
