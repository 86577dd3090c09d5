package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// DefaultDBFile is the embedded database's file name inside the data
// directory.
const DefaultDBFile = "qinglong.db"

// DataDir is $QL_DATA_DIR, or the working directory.
func DataDir() string {
	if d := os.Getenv("QL_DATA_DIR"); d != "" {
		return d
	}
	return "."
}

// addDBFlag registers --db on a command that reads or writes definitions.
func addDBFlag(c *cobra.Command, dsn *string) {
	c.Flags().StringVar(dsn, "db", "", dbFlagUsage(true))
}

// dbFlagUsage describes --db in a build with or without PostgreSQL.
func dbFlagUsage(postgres bool) string {
	const file = "database: a SQLite file path (default $QL_DATA_DIR/qinglong.db, else ./qinglong.db)"
	if !postgres {
		return file
	}
	return file + " or a postgres:// URL without a password (else $QL_DATABASE_URL, which may hold one)"
}

// describeDBFlags fits every --db flag's help to the build.
func describeDBFlags(root *cobra.Command, postgres bool) {
	for _, c := range root.Commands() {
		if fl := c.Flags().Lookup("db"); fl != nil {
			fl.Usage = dbFlagUsage(postgres)
		}
		describeDBFlags(c, postgres)
	}
}

// IsPostgresURL reports whether dsn names a PostgreSQL database.
func IsPostgresURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// openBackend opens the --db database for writing definitions (the
// embedded file is created and migrated on first use).
func openBackend(ctx context.Context, opts Options, dsn string) (*Backend, error) {
	return open(ctx, opts, dsn, false)
}

// openExisting opens the --db database for reading: a missing embedded file
// is an error, not a silently created empty database, and an existing one
// is opened read-only.
func openExisting(ctx context.Context, opts Options, dsn string) (*Backend, error) {
	return open(ctx, opts, dsn, true)
}

// resolveDSN is the database a --db value names: the flag, else
// $QL_DATABASE_URL, else the embedded file in the data directory.
func resolveDSN(dsn string) string {
	if dsn == "" {
		dsn = os.Getenv("QL_DATABASE_URL")
	}
	if dsn == "" {
		dsn = filepath.Join(DataDir(), DefaultDBFile)
	}
	return dsn
}

func open(ctx context.Context, opts Options, dsn string, mustExist bool) (*Backend, error) {
	if err := refuseArgvPassword("--db", dsn); err != nil {
		return nil, err
	}
	dsn = resolveDSN(dsn)
	if IsPostgresURL(dsn) {
		if opts.OpenPostgres == nil {
			return nil, Usagef("this %s build has no PostgreSQL support; use the full ql binary for postgres:// databases", opts.Binary)
		}
		warn(ctx, opts.Binary, weakTLS(dsn, os.Getenv))
		return opts.OpenPostgres(ctx, dsn)
	}
	if mustExist {
		if _, err := os.Stat(dsn); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no QingLong database at %s: start with `ql serve` or `ql apply -f FILE` there, or point --db (or $QL_DATA_DIR) at an existing one", dsn)
		}
		return opts.OpenSQLiteReadOnly(ctx, dsn)
	}
	return opts.OpenSQLite(ctx, dsn)
}
