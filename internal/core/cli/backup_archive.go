package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

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
			return opts.BackupArchive(ctx, dsn, file, w)
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
	n, err := writeArchiveFile(cmd.Context(), target, write)
	if err != nil {
		return err
	}
	fmt.Fprintf(textWriter{cmd.OutOrStdout()}, "backup archive written to %s (%s); to restore it, check it (gzip -t), stop the server, unpack it into an empty directory "+
		"(mkdir -m 700 DIR && tar -xzf %s -C DIR) and put that directory in the data directory's place, as for a backup directory (docs/operations.md, \"Backup and restore\")\n",
		target, databackup.Size(n), target)
	return nil
}

// writeArchiveFile writes the archive to target, a new file: first as
// target.partial (mode 0600), then, once whole and on disk, renamed to
// target; on failure the partial file is removed, so no archive cut short
// is left to be taken for a whole one.
func writeArchiveFile(ctx context.Context, target string, write func(context.Context, io.Writer, string) (int64, error)) (int64, error) {
	if _, err := os.Lstat(target); err == nil {
		return 0, qlerror.New(qlerror.Invalid, "%s exists; give a new file for the backup archive", target)
	}
	partial := target + partialArchive
	f, err := os.OpenFile(partial, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return 0, qlerror.New(qlerror.Invalid, "%s exists: another backup is being written to %s, or one was cut off; remove it if none runs, or give another file", partial, target)
	}
	if err != nil {
		return 0, qlerror.Wrap(qlerror.Invalid, err, "cannot create %s for the backup archive; give a file in a directory this user may write", partial)
	}
	n, err := write(ctx, f, target)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(partial, target)
	}
	if err != nil {
		_ = os.Remove(partial)
		return n, err
	}
	return n, nil
}
