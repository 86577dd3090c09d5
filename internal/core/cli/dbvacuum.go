package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// addDBVacuum gives the tree's `db` command `vacuum`, which compacts the
// embedded database; in the full binary the same `db` holds the cluster's
// commands, and a PostgreSQL database is refused by name.
func addDBVacuum(root *cobra.Command, opts Options) {
	if opts.Vacuum == nil {
		return
	}
	for _, c := range root.Commands() {
		if c.Name() == "db" {
			c.AddCommand(dbVacuumCommand(opts))
			return
		}
	}
	db := &cobra.Command{Use: "db", Short: "Check and compact the embedded SQLite database"}
	db.AddCommand(dbVacuumCommand(opts))
	root.AddCommand(db)
}

func dbVacuumCommand(opts Options) *cobra.Command {
	var db dbFlags
	long := `Rewrite the embedded database file, DIR/qinglong.db, without the free and half-empty pages that
deleted rows leave (retention gives whole free pages back by itself; the pages deleted rows only
thinned out stay until a vacuum). Stop the server first: the vacuum refuses while a server serves
DIR, and holds the directory's server lock while it runs, so no server starts meanwhile; run no
other command on DIR either. It needs free space beside the file for a copy as large as the file,
and refuses before writing anything when the disk has less, saying how much is needed. It writes
the compacted copy to DIR/qinglong.db.vacuum (mode 0600), writes it to disk, and renames it over
qinglong.db: an interrupted vacuum (Ctrl-C, a kill, a power cut) leaves the database as it was, and
its unfinished copy is removed by the next vacuum. It takes time in proportion to the file's size
(about 10 s a GiB on a fast disk, several times that on a small device); it says where it is every
10 s, and ends with the size before and after.`
	if opts.OpenPostgres != nil {
		long += "\n\nThe cluster's database is PostgreSQL: its autovacuum reuses the space of deleted rows (docs/operations.md, \"Retention\")."
	}
	c := &cobra.Command{
		Use:          "vacuum",
		Short:        "Compact the embedded database file, with the server stopped",
		Long:         long,
		Example:      "  " + opts.Binary + " db vacuum --data-dir /var/lib/qinglong",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dsn, err := db.resolve(opts)
			if err != nil {
				return err
			}
			if IsPostgresURL(dsn) {
				return Usagef("db vacuum compacts an embedded database (--data-dir); a PostgreSQL database needs none: its autovacuum " +
					"makes the space of deleted rows reusable, and VACUUM FULL (in psql, as the schema's owner, with the replicas stopped) gives it back to the file system")
			}
			if _, err := os.Stat(dsn); errors.Is(err, fs.ErrNotExist) {
				return qlerror.New(qlerror.NotFound, "no QingLong database at %s: point --data-dir (or $QL_DATA_DIR) at the directory of an existing one", dsn).
					Because(RefusalNoDatabase, "db", dsn)
			}
			start := time.Now()
			before, after, err := opts.Vacuum(cmd.Context(), dsn, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			abs, err := filepath.Abs(dsn)
			if err != nil {
				abs = dsn
			}
			fmt.Fprintf(textWriter{cmd.OutOrStdout()}, "vacuumed %s: %.1f MiB before, %.1f MiB after (%.1f MiB given back) in %s\n",
				abs, mib(before), mib(after), mib(before-after), time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	return c
}
