package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/shellquote"
)

// errCorrupt ends `db check` on a corrupt file, once it has printed
// SQLite's findings and what to do: it exits ExitCorrupt, adding nothing.
var errCorrupt = errors.New("the database file is corrupt")

// addDBCheck gives the tree `db check` for the embedded database. The full
// binary's `db` is the cluster's (opts.Extra): its check stays what `db
// check` runs without --data-dir (or $QL_DATA_DIR) when a cluster URL is
// set (clusterURLSet), so a cluster's scripts keep working, and the
// cluster's package never learns of SQLite; without one it checks the
// working directory's database, as every other command reads it.
func addDBCheck(root *cobra.Command, opts Options) {
	if opts.CheckSQLite == nil {
		return
	}
	var db *cobra.Command
	for _, c := range root.Commands() {
		if c.Name() == "db" {
			db = c
		}
	}
	if db == nil {
		db = &cobra.Command{Use: "db", Short: "Check and compact the embedded SQLite database"}
		root.AddCommand(db)
	} else {
		db.Short = "Check and compact the embedded SQLite database; set up and check the cluster's PostgreSQL one"
		db.Long = "check and vacuum work on the embedded SQLite database of --data-dir (or $QL_DATA_DIR, else the working directory);\n" +
			"migrate, roles, and check with $" + envClusterURL + " (or $" + envRuntimeURL + ") set, on the cluster's PostgreSQL control database.\n\n" + db.Long
	}
	var cluster *cobra.Command
	for _, c := range db.Commands() {
		if c.Name() == "check" {
			cluster = c
			db.RemoveCommand(c)
		}
	}
	db.AddCommand(dbCheckCommand(opts, cluster))
}

func dbCheckCommand(opts Options, cluster *cobra.Command) *cobra.Command {
	var dataDir string
	var quick bool
	long := `Read the whole embedded database file, DIR/qinglong.db, with SQLite's integrity_check: every page of
every table and index, and that each index agrees with its table (--quick: quick_check, which skips
that cross-check, as a server's start does). It opens the file read-only, as the read commands do: it
writes nothing and takes no lock a server holds, so the server may go on serving meanwhile (while it
reads, the server's -wal file cannot be truncated back and grows by what the server writes). It
reads every page once: about 8 ms a megabyte with the file cached for --quick, more for the full
check the more indexes there are, several times that from a small device's flash; it says the file's
size on stderr as it starts.
Prints "ok" and exits 0 for a sound file. For a corrupt one it prints SQLite's findings and what to
do — stop every server on the directory and restore the latest backup (docs/operations.md, "Backup
and restore") — and exits 7. A --data-dir that is no data directory or holds no database exits 2.`
	example := "  " + opts.Binary + " db check --data-dir /var/lib/qinglong"
	if cluster != nil {
		long = "With $" + envRuntimeURL + " or $" + envClusterURL + " set and no --data-dir (nor $QL_DATA_DIR): the cluster's check.\n" + cluster.Long +
			"\n\nOtherwise the standalone or edge profile's, on --data-dir DIR (or $QL_DATA_DIR, else the working directory): " + long
		example += "\n  " + opts.Binary + " db check            # in a data directory: its database; the cluster's with $QL_DATABASE_URL set"
	}
	c := &cobra.Command{
		Use:          "check",
		Short:        "Check the embedded database file for corruption, or the cluster's database (with $QL_DATABASE_URL)",
		Long:         long,
		Example:      example,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cluster != nil && dataDir == "" && clusterURLSet() {
				if quick {
					return Usagef("--quick checks an embedded database: give its --data-dir DIR; the cluster's check has no quick form")
				}
				return cluster.RunE(cmd, args)
			}
			return checkEmbedded(cmd, opts, cmp.Or(dataDir, "."), quick, cluster != nil && dataDir == "")
		},
	}
	if cluster == nil {
		c.Short = "Check the embedded database file for corruption, read-only, while the server runs"
	}
	fs := c.Flags()
	fs.StringVar(&dataDir, "data-dir", "", "directory of the embedded database, qinglong.db (default $QL_DATA_DIR, else .)")
	BindEnv(fs, "data-dir")
	fs.BoolVar(&quick, "quick", false, "run SQLite's quick_check, as a server's start does: every page, without the cross-check of each index against its table")
	return c
}

// The cluster check's URL variables (the cluster's dbcli.EnvRuntimeURL and
// EnvURL, which this package cannot import): either set has `db check`
// without --data-dir check the cluster's database.
const (
	envRuntimeURL = "QL_DATABASE_RUNTIME_URL"
	envClusterURL = "QL_DATABASE_URL"
)

// clusterURLSet reports whether a cluster URL variable is set (a renamed
// one still set counts: the cluster's check refuses it by its new name).
func clusterURLSet() bool {
	for _, name := range []string{envRuntimeURL, envClusterURL} {
		if u, err := Getenv(os.Getenv, name); err != nil || u != "" {
			return true
		}
	}
	return false
}

// checkEmbedded runs the check on DIR/qinglong.db and reports it. orCluster
// says the directory is the working directory a full binary defaulted to
// for want of a cluster URL, so a missing database also names that URL.
func checkEmbedded(cmd *cobra.Command, opts Options, dir string, quick, orCluster bool) error {
	if err := CheckDataDir(dir, false); err != nil {
		return err
	}
	path := filepath.Join(dir, DefaultDBFile)
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if orCluster {
			return Usagef("no QingLong database in the working directory (%s): give --data-dir DIR (or $QL_DATA_DIR) of an existing one, "+
				"or, to check the cluster's PostgreSQL database, set $%s (or $%s)", path, envRuntimeURL, envClusterURL)
		}
		return Usagef("no QingLong database at %s: point --data-dir (or $QL_DATA_DIR) at the directory of an existing one", path)
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	check := "integrity_check"
	if quick {
		check = "quick_check"
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "checking %s (%.1f MiB) with SQLite's %s, read-only; a server on it goes on serving\n", path, mib(info.Size()), check)
	start := time.Now()
	found, err := opts.CheckSQLite(cmd.Context(), path, quick)
	if err != nil {
		return err
	}
	took := time.Since(start).Round(time.Millisecond)
	out := textWriter{cmd.OutOrStdout()}
	if len(found) == 0 {
		fmt.Fprintf(out, "ok: %s passed SQLite's %s (%.1f MiB in %s)\n", path, check, mib(info.Size()), took)
		return nil
	}
	fmt.Fprintf(out, "corrupt: %s failed SQLite's %s:\n", path, check)
	for _, f := range found {
		fmt.Fprintf(out, "  %s\n", strings.ReplaceAll(f, "\n", "\n  "))
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	fmt.Fprintf(out, "A server would admit and run commands whose results it could not record in this file, and a "+
		"server starting on it refuses it. Stop every server on %[1]s, then restore your latest backup "+
		"(docs/operations.md, \"Backup and restore\"): check it is whole (test -f BACKUP/qinglong.db && ! test -e BACKUP/.qinglong-backup-partial), "+
		"move the directory aside and the backup to its path (mv %[1]s %[1]s.corrupt && cp -a BACKUP %[1]s), and start the server: "+
		"what was written after the backup is not in it. Take backups with `%[2]s backup DIR` while the server runs.\n",
		shellquote.Quote(abs), opts.Binary)
	return errCorrupt
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
