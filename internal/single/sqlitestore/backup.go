package sqlitestore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// BackupTo writes a consistent copy of the database at path to dest, a
// file that must not exist yet, and returns the ids of the attempts in
// the copy that have a log file: the files that belong with it. The copy
// is one read transaction, copied a step at a time with rests between
// (copyInSteps), so a server goes on serving meanwhile, its writer never
// waiting for the copy; what it commits later is not in the copy. The source is opened read-only
// (an operator who may only read the file can back it up) and the copy
// is verified to be a readable QingLong database of this version. The
// copy's unfinished attempts forget their process (a server started on the
// copy records them lost without ending the live server's commands).
func BackupTo(ctx context.Context, path, dest string) (loggedAttempts []string, err error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, qlerror.New(qlerror.NotFound, "no QingLong database at %s; point --data-dir at the directory of the one to back up", path)
	}
	if _, err := os.Lstat(dest); err == nil {
		return nil, qlerror.New(qlerror.Invalid, "%s already exists; a backup is written to a new file", dest)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Invalid, err, "sqlite path %s", path)
	}
	cfg := Config{Path: path}.WithDefaults()
	src, err := openReadPool(ctx, fmt.Sprintf("file:%s?mode=ro&_pragma=busy_timeout(%d)", (&url.URL{Path: abs}).EscapedPath(), cfg.BusyTimeout.Milliseconds()), 1)
	if isNotADatabase(err) {
		return nil, mapErr(err, "open SQLite database "+path)
	}
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "open SQLite database %s to back it up; check that it is readable", path)
	}
	if err := backupSource(ctx, src, path); err != nil {
		_ = src.Close()
		return nil, err
	}
	// Created first, empty, with the mode a database this store creates
	// gets; the backup then fills it.
	absDest, err := filepath.Abs(dest)
	if err != nil {
		_ = src.Close()
		return nil, qlerror.Wrap(qlerror.Invalid, err, "sqlite path %s", dest)
	}
	if err := createPrivate(dest); err != nil {
		_ = src.Close()
		return nil, err
	}
	snapshotMs, err := copyInSteps(ctx, src, absDest, sharedPace, nil)
	if cerr := src.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = forgetProcesses(ctx, dest, snapshotMs)
	}
	if err != nil {
		_ = os.Remove(dest)
		if primaryCode(err) == sqlite3.SQLITE_FULL || errors.Is(err, syscall.ENOSPC) {
			// The source's disk was only read: the full one is where
			// the copy goes, which SQLite's "disk is full" does not say.
			return nil, qlerror.Wrap(qlerror.Unavailable, err, "back up %s to %s: the disk holding %s, the backup's destination, is full; free space on it or back up to another disk",
				path, dest, filepath.Dir(dest))
		}
		return nil, mapErr(err, "back up "+path+" to "+dest)
	}
	// The copy is only read here; the clock is the host's. No other
	// process knows the copy yet, so it is opened without the open lock,
	// whose file would be left beside it (lockOpen).
	copied, err := openReading(ctx, Config{Path: dest, NowMs: func() int64 { return time.Now().UnixMilli() }}.WithDefaults(), absDest)
	if err != nil {
		return nil, err
	}
	defer copied.Close() //nolint:errcheck // read only
	if err := copied.ReadyToRead(ctx); err != nil {
		return nil, qlerror.Wrap(qlerror.FailedPrecondition, err, "the copy %s is not a database this build can read", dest)
	}
	rows, err := copied.readPool().QueryContext(ctx, qBackupLoggedAttempts)
	if err != nil {
		return nil, mapErr(err, "list the logged attempts of "+dest)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, mapErr(err, "list the logged attempts of "+dest)
		}
		loggedAttempts = append(loggedAttempts, id)
	}
	return loggedAttempts, mapErr(rows.Err(), "list the logged attempts of "+dest)
}

// backupSource refuses, before anything is copied, a source this build
// cannot back up, saying what it is: an empty file (nothing to back up),
// or an older build's database, which this build reads only once its
// server has migrated it — the step a backup taken before an upgrade is
// there to undo, so the refusal says how to copy it as it is instead.
func backupSource(ctx context.Context, src queryer, path string) error {
	history, err := readHistory(ctx, src)
	if err != nil {
		return mapErr(err, "read the migration history of "+path)
	}
	stream := Stream()
	switch {
	case len(history) == 0:
		return qlerror.New(qlerror.FailedPrecondition, "%s: nothing to back up: %s", path, noDatabaseHeld)
	case historyIsPrefix(history, stream) == nil && len(history) < len(stream):
		return qlerror.New(qlerror.FailedPrecondition, "%s is an older build's database (%d of %d migrations applied), which this build reads only after its server migrated it: "+
			"back it up with the older build's backup command, or stop the older server and copy the whole data directory (cp -a DIR DIR.bak)", path, len(history), len(stream))
	}
	return nil
}

// forgetProcesses takes the copy at dest out of WAL mode
// (backup_copy_rollback_mode.sql), clears the process of every unfinished attempt in the
// copy at dest (see backup_forget_processes.sql) and drops its console
// sessions (backup_forget_sessions.sql) and the sign-ins waiting for
// their second step (backup_forget_two_step_pending.sql): all are the
// live server's. It
// marks the copy with its snapshot time (backup_mark_snapshot.sql), in the
// copy itself, for the first server started on it to say.
func forgetProcesses(ctx context.Context, dest string, snapshotMs int64) error {
	abs, err := filepath.Abs(dest)
	if err != nil {
		return err
	}
	db, err := openReadPool(ctx, "file:"+(&url.URL{Path: abs}).EscapedPath(), 1)
	if err != nil {
		return err
	}
	var mode string
	err = db.QueryRowContext(ctx, qBackupRollbackMode).Scan(&mode)
	if err == nil {
		_, err = db.ExecContext(ctx, qBackupForgetProcesses)
	}
	if err == nil {
		_, err = db.ExecContext(ctx, qBackupForgetSessions)
	}
	if err == nil {
		_, err = db.ExecContext(ctx, qBackupForgetTwoStepPending)
	}
	if err == nil {
		_, err = db.ExecContext(ctx, qBackupMarkSnapshot, snapshotMs)
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}
