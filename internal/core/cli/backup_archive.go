package cli

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/databackup"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// partialArchive ends the name an archive is written under until it is
// whole.
const partialArchive = ".partial"

// backupArchive is `backup --archive TARGET`: the data directory's backup
// as one gzipped tar, made here from the database or by the server given
// --api-url, written to TARGET or, for "-", standard output.
func backupArchive(cmd *cobra.Command, opts Options, db *dbFlags, target string) error {
	if target == "-" && isTerminal(cmd.OutOrStdout()) {
		return Usagef("--archive - writes the gzipped archive to standard output, which is a terminal here: redirect it (> FILE) or give --archive FILE")
	}
	notes := cmd.ErrOrStderr()
	if target != "-" {
		notes = textWriter{cmd.OutOrStdout()}
	}
	var write func(ctx context.Context, w io.Writer, file string) (int64, error)
	if db.server != "" {
		c, err := remoteClient(db)
		if err != nil {
			return err
		}
		write = func(ctx context.Context, w io.Writer, _ string) (int64, error) { return c.downloadBackup(ctx, w) }
	} else {
		dsn, err := db.resolve(opts)
		if err != nil {
			return err
		}
		if IsPostgresURL(dsn) || opts.BackupArchive == nil {
			return Usagef("ql backup copies an embedded database (--data-dir); a PostgreSQL database is backed up as a superuser with "+
				"`pg_dump --format=custom --schema=qinglong --file=qinglong.dump \"$SUPERUSER_URL\"` (umask 077; docs/operations.md, %q, says how to restore it)", "Backup and restore")
		}
		if err := mustExist(cmd, dsn); err != nil {
			return err
		}
		write = func(ctx context.Context, w io.Writer, file string) (int64, error) {
			return opts.BackupArchive(ctx, dsn, file, w, notes)
		}
	}
	if target == "-" {
		n, err := write(cmd.Context(), cmd.OutOrStdout(), "")
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "backup archive written to standard output (%s)\n", databackup.Size(n))
		return nil
	}
	n, err := writeArchiveFile(cmd.Context(), target, notes, write)
	if err != nil {
		return err
	}
	fmt.Fprintf(textWriter{cmd.OutOrStdout()}, "backup archive written to %s (%s); to restore it, check it (gzip -t), stop the server, unpack it into an empty directory "+
		"(mkdir -m 700 DIR && tar -xzf %s -C DIR) and put that directory in the data directory's place, as for a backup directory (docs/operations.md, \"Backup and restore\")\n",
		target, databackup.Size(n), target)
	return nil
}

// writeArchiveFile writes the archive to target, a new file: first as
// target.partial (mode 0600), locked (flock) while it is written, then,
// once whole and on disk, renamed to target; on failure the partial file
// is removed, so no archive cut short is left to be taken for a whole
// one. A target.partial no run holds locked that is empty or an archive
// of its own (databackup.ArchiveComment) was left by a run killed before
// its end: it is written over, said on notes. Any other is refused.
func writeArchiveFile(ctx context.Context, target string, notes io.Writer, write func(context.Context, io.Writer, string) (int64, error)) (int64, error) {
	if _, err := os.Lstat(target); err == nil {
		return 0, qlerror.New(qlerror.Invalid, "%s exists; give a new file for the backup archive", target)
	}
	partial := target + partialArchive
	f, stale, err := openPartial(partial, target)
	if err != nil {
		return 0, err
	}
	if stale {
		fmt.Fprintf(notes, "replaced %s, left by a backup to %s cut off before its end\n", partial, target)
	}
	n, err := write(ctx, f, target)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = os.Rename(partial, target)
	}
	if err != nil {
		_ = os.Remove(partial)
	}
	// Closed last: the lock is held until the file is renamed or gone.
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// openPartial opens the partial file at path for the archive of target,
// locked and empty, and reports whether it was one a killed run left.
func openPartial(path, target string) (f *os.File, stale bool, err error) {
	f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, fs.ErrExist) {
		stale = true
		f, err = os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW, 0)
	}
	if err != nil {
		return nil, false, qlerror.Wrap(qlerror.Invalid, err, "cannot create %s for the backup archive; give a file in a directory this user may write", path)
	}
	busy := qlerror.New(qlerror.Invalid, "%s is being written by another backup to %s; wait until it ends, or give another file", path, target)
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, busy
		}
		return nil, false, qlerror.Wrap(qlerror.Invalid, err, "lock %s for the backup archive", path)
	}
	// The name still leads to the file locked: a run that ended between
	// the open and the lock renamed or removed it.
	opened, oerr := f.Stat()
	named, nerr := os.Lstat(path)
	if oerr != nil || nerr != nil || !os.SameFile(opened, named) {
		_ = f.Close()
		return nil, false, busy
	}
	if stale {
		if !leftByABackup(f) {
			_ = f.Close()
			return nil, false, qlerror.New(qlerror.Invalid, "%s exists and is no backup archive cut off by this command; remove it if it is not needed, or give another file", path)
		}
		if err := f.Truncate(0); err != nil {
			_ = f.Close()
			return nil, false, qlerror.Wrap(qlerror.Invalid, err, "empty %s, left by a backup cut off before its end", path)
		}
	}
	return f, stale, nil
}

// leftByABackup reports whether f, a partial file no run holds, is
// empty or begins an archive this command writes: a gzip stream whose
// header says databackup.ArchiveComment.
func leftByABackup(f *os.File) bool {
	info, err := f.Stat()
	if err != nil {
		return false
	}
	if info.Size() == 0 {
		return true
	}
	zr, err := gzip.NewReader(io.NewSectionReader(f, 0, info.Size()))
	if err != nil {
		return false
	}
	return zr.Comment == databackup.ArchiveComment
}
