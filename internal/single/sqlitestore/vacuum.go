package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"syscall"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// VacuumInto writes a compacted copy of the database at path into dest,
// an empty file the caller made (so the copy keeps the mode it chose), for
// the caller to move over path once it is on disk. First the -wal file's
// frames are written into the database file and the -wal file emptied:
// a -wal file left beside path holding frames of the old file would be
// applied to the copy that replaces it, and corrupt it. The caller holds
// the data directory's server lock, so no server writes meanwhile; a
// checkpoint another process's open read keeps from its end is refused.
// A context that ends stops the copy, which is one statement SQLite
// interrupts (dest is then the caller's to remove). A pageBytes other
// than 0 gives the copy that page size: VACUUM INTO writes a new file, so
// it can take another size even from a database in WAL mode, which a
// plain VACUUM cannot.
func VacuumInto(ctx context.Context, path, dest string, pageBytes int) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return qlerror.Wrap(qlerror.Invalid, err, "sqlite path %s", path)
	}
	cfg := Config{Path: path}.WithDefaults()
	db, err := openReadPool(ctx, fmt.Sprintf("file:%s?_pragma=busy_timeout(%d)", (&url.URL{Path: abs}).EscapedPath(), cfg.BusyTimeout.Milliseconds()), 1)
	if err != nil {
		return mapErr(err, "open SQLite database "+path+" to vacuum it")
	}
	err = vacuumInto(ctx, db, path, dest, pageBytes)
	if cerr := db.Close(); err == nil && cerr != nil {
		err = mapErr(cerr, "close "+path)
	}
	return err
}

func vacuumInto(ctx context.Context, db *sql.DB, path, dest string, pageBytes int) error {
	var busy, logFrames, checkpointed int
	if err := db.QueryRowContext(ctx, qWALCheckpointTruncate).Scan(&busy, &logFrames, &checkpointed); err != nil {
		return mapErr(err, "write the -wal file of "+path+" into it")
	}
	if busy != 0 {
		return qlerror.New(qlerror.FailedPrecondition,
			"another process is reading %s and keeps its -wal file from being emptied, which a vacuum needs before it replaces the file: stop every command using the data directory (`fuser %s`) and run the vacuum again", path, path)
	}
	if pageBytes != 0 {
		if err := validPageBytes(pageBytes); err != nil {
			return err
		}
		// The pool holds one connection, so the VACUUM INTO below runs
		// on the connection that took the size.
		if _, err := db.ExecContext(ctx, fmt.Sprintf("PRAGMA page_size = %d", pageBytes)); err != nil {
			return mapErr(err, fmt.Sprintf("give the compacted copy of %s pages of %d bytes", path, pageBytes))
		}
	}
	if _, err := db.ExecContext(ctx, qVacuumInto, dest); err != nil {
		if primaryCode(err) == sqlite3.SQLITE_FULL || errors.Is(err, syscall.ENOSPC) {
			return qlerror.Wrap(qlerror.Unavailable, err, "vacuum %s: the disk holding it filled up while the compacted copy was written; the database is unchanged: free space on that disk and run the vacuum again", path)
		}
		return mapErr(err, "vacuum "+path+" into "+dest)
	}
	return walMode(ctx, dest)
}

// walMode puts the copy at dest in WAL mode. Its one connection's close
// writes the copy's own -wal back and removes it, so nothing of the copy
// is left beside it to follow the rename.
func walMode(ctx context.Context, dest string) error {
	abs, err := filepath.Abs(dest)
	if err != nil {
		return qlerror.Wrap(qlerror.Invalid, err, "sqlite path %s", dest)
	}
	db, err := openReadPool(ctx, "file:"+(&url.URL{Path: abs}).EscapedPath()+"?mode=rw", 1)
	if err != nil {
		return mapErr(err, "open the compacted copy "+dest)
	}
	var mode string
	err = db.QueryRowContext(ctx, qJournalModeWAL).Scan(&mode)
	if cerr := db.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil && mode != "wal" {
		err = fmt.Errorf("journal mode %q", mode)
	}
	if err != nil {
		return mapErr(err, "put the compacted copy "+dest+" in WAL mode")
	}
	return nil
}
