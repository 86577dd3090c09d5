package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/shellquote"
)

func backupCommand(opts Options) *cobra.Command {
	var db dbFlags
	var archive string
	long := `Copy a single-node data directory into DIR, a new or empty directory: a consistent copy of
qinglong.db taken in one read transaction (the server may go on serving; what it commits later is
not in the copy), then the logs of the attempts in that copy, then qinglong-secrets.json (mode
0600). Copying qinglong.db with cp while a server runs is not a backup: the file lags its -wal
file. To restore, stop the server, move its data directory aside and copy DIR to its path (mv DATA
DATA.old && cp -a DIR DATA), then start the server again: serving DIR itself would write into the
backup. Runs that were running when the copy was taken end lost on that start, as after a crash; the
commands the live server still runs are left alone. The first start on the copy warns that
occurrences after the backup may run again (` + opts.Binary + ` serve --after-restore skip-missed passes them over)
and that tokens revoked, users disabled and passwords changed since are back: revoke, disable and
change them again. The copy is built in
DIR/.qinglong-backup-partial and moved into DIR, the database last, only once whole and on disk: a DIR
without qinglong.db (or still holding .qinglong-backup-partial) is a backup cut off before its end —
remove it and back up again.

With --archive FILE it writes the same as one gzipped tar file instead, to unpack into an empty
directory (mkdir -m 700 DIR && tar -xzf FILE -C DIR) and restore as above: the database's copy is
made beside FILE first and removed after; FILE is written as FILE.partial (locked while it is
written) and renamed only once whole, so a FILE that exists is a whole archive. What a run killed
before its end leaves — FILE.partial and the working copy beside it — the next run to FILE replaces,
and says so; a FILE.partial another run is writing, or that is no archive of this command's, is
refused. --archive - writes it to standard output (never a terminal). ` + apiHelp("backup") + ` The server sends the archive its console's Backup page
sends (GET /api/v1/backup); it makes one at a time.`
	if opts.OpenPostgres != nil {
		long += "\n\nThe cluster's database is PostgreSQL: back it up with pg_dump (docs/operations.md, \"Backup and restore\")."
	}
	c := &cobra.Command{
		Use:   "backup DIR | --archive FILE|-",
		Short: "Copy the embedded database, its logs and secrets into a new directory, while the server runs",
		Long:  long,
		Example: "  " + opts.Binary + " backup /var/backups/qinglong-$(date +%F) --data-dir /var/lib/qinglong\n  " +
			opts.Binary + " backup --archive /var/backups/qinglong-$(date +%F).tar.gz --data-dir /var/lib/qinglong\n  " +
			opts.Binary + " backup --archive - --api-url https://ql.example.com:8080 > qinglong-backup.tar.gz",
		Args: func(cmd *cobra.Command, args []string) error {
			if archive != "" {
				if len(args) > 0 {
					return Usagef("--archive writes one file: give --archive FILE or a directory DIR, not both")
				}
				return nil
			}
			return oneArg("backup takes one directory to write the copy into (or --archive FILE)")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if archive != "" {
				return backupArchive(cmd, opts, &db, archive)
			}
			if db.server != "" {
				return Usagef("--api-url downloads the server's backup as one archive: give --archive FILE (or - for standard output) instead of a directory")
			}
			dsn, err := db.resolve(opts)
			if err != nil {
				return err
			}
			if IsPostgresURL(dsn) || opts.Backup == nil {
				// The database named is the wrong input for this command:
				// no retry copies it, so it exits as a usage error.
				return Usagef("ql backup copies an embedded database (--data-dir); a PostgreSQL database is backed up as a superuser with "+
					"`pg_dump --format=custom --schema=qinglong --file=qinglong.dump \"$SUPERUSER_URL\"` (umask 077; docs/operations.md, %q, says how to restore it)", "Backup and restore")
			}
			if err := mustExist(cmd, dsn); err != nil {
				return err
			}
			if err := opts.Backup(cmd.Context(), dsn, args[0], cmd.ErrOrStderr()); err != nil {
				return err
			}
			// The copy is a whole data directory with every trigger in
			// it: served beside the live server, it would run each of
			// them a second time. It is copied into the data directory's
			// place rather than served where it is, which would use the
			// backup up: the server writes into the directory it serves.
			live, err := filepath.Abs(filepath.Dir(dsn))
			if err != nil {
				live = filepath.Dir(dsn)
			}
			fmt.Fprintf(textWriter{cmd.OutOrStdout()}, "backup written to %s; to restore it, stop the server of %s first, then copy the backup to its path, "+
				"`mv %s %s && cp -a %s %s`, and start that server again (served beside that server, the copy would run every trigger a second time; "+
				"served where it is, it would no longer be a backup)\n", args[0], live,
				shellquote.Quote(live), shellquote.Quote(live+".old"), shellquote.Quote(args[0]), shellquote.Quote(live))
			return nil
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	c.Flags().StringVar(&archive, "archive", "", "write the backup as one .tar.gz file, FILE (new), or - for standard output, instead of a directory")
	return c
}
