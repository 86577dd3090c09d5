package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// DefaultDBFile is the embedded database's file name inside the data
// directory.
const DefaultDBFile = "qinglong.db"

// dbFlags say where a command finds its database: --data-dir names the
// directory of the embedded one (the file is qinglong.db in it, beside the
// logs `runs logs` reads), --database-url a PostgreSQL database. serve
// takes the same two flags.
type dbFlags struct {
	cmd     *cobra.Command
	dataDir string
	url     string
	// server, when set (--api-url), is a server's API to ask instead.
	server string
	// clockBehindOK (--clock-behind-ok) writes the embedded database
	// although this host's clock reads behind the newest time it recorded.
	clockBehindOK bool
}

// FlagClockBehindOK names the flag of every command that writes the
// embedded database itself: it writes although the clock reads behind the
// newest time the database recorded, which it otherwise refuses.
const FlagClockBehindOK = "clock-behind-ok"

// addDBWriteFlags registers the database flags on a command that writes
// the database, and --clock-behind-ok with them.
func addDBWriteFlags(c *cobra.Command, f *dbFlags, postgres bool) {
	addDBFlags(c, f, postgres)
	c.Flags().BoolVar(&f.clockBehindOK, FlagClockBehindOK, false, "write the embedded database although this device's clock reads over a minute behind the newest time it recorded "+
		"(refused otherwise, with reason clock_behind_database): only for a clock known to be right, such as a database copied from a machine whose clock ran ahead")
}

// addDBFlags registers the database flags on a command that reads or
// writes definitions; --database-url only in a build with PostgreSQL.
func addDBFlags(c *cobra.Command, f *dbFlags, postgres bool) {
	f.cmd = c
	fs := c.Flags()
	fs.StringVar(&f.dataDir, "data-dir", "", "directory of the embedded database, qinglong.db (default $QL_DATA_DIR, else .)")
	BindEnv(fs, "data-dir")
	if postgres {
		fs.StringVar(&f.url, "database-url", "", "PostgreSQL database: a postgres:// URL without a password (prefer $QL_DATABASE_URL, which may hold one); wins over $QL_DATA_DIR")
		BindEnv(fs, "database-url")
	} else {
		addAbsentURLFlag(fs)
	}
	addRetiredDBFlag(fs)
}

// urlFlagOf is --database-url where this build has it; nil in a build
// without PostgreSQL, whose hidden flag of that name only refuses.
func urlFlagOf(fs *pflag.FlagSet) *pflag.Flag {
	if fl := fs.Lookup("database-url"); fl != nil && !fl.Hidden {
		return fl
	}
	return nil
}

// addAbsentURLFlag registers --database-url, hidden, in a build without
// PostgreSQL: NewRoot's pre-run hook refuses it pointing at the full
// binary, where cobra would only call the flag unknown, and someone who
// copied a command from the docs would not learn that this build lacks
// the database rather than the flag being misspelt.
func addAbsentURLFlag(fs *pflag.FlagSet) {
	fs.String("database-url", "", "not in this build")
	_ = fs.MarkHidden("database-url")
}

// addRetiredDBFlag registers --db, hidden: NewRoot's pre-run hook refuses
// it with what replaced it, so its value is never read as a database.
func addRetiredDBFlag(fs *pflag.FlagSet) {
	fs.String("db", "", "replaced by --data-dir and --database-url")
	_ = fs.MarkHidden("db")
}

// refuseRetiredDB explains what replaced --db VALUE: the value decides
// which flag, so the hint can be copied as it is. A URL is never repeated
// (it may hold a password).
func refuseRetiredDB(opts Options, v string) error {
	switch {
	case IsPostgresURL(v) && opts.OpenPostgres == nil:
		return Usagef("--db was replaced, and this %s build has no PostgreSQL support: use the full ql binary for that database, or --data-dir DIR for an embedded one", opts.Binary)
	case IsPostgresURL(v):
		return Usagef("--db was replaced: give the PostgreSQL URL as --database-url, or in $QL_DATABASE_URL when it holds a password")
	}
	dir, file := filepath.Dir(v), filepath.Base(v)
	if file == DefaultDBFile {
		return Usagef("--db was replaced by --data-dir, the directory holding %s; write --data-dir %s", DefaultDBFile, dir)
	}
	return Usagef("--db was replaced by --data-dir, the directory holding the database, which is always named %s there; "+
		"rename %s to %s (with its -wal and -shm files, if any) and write --data-dir %s", DefaultDBFile, v, filepath.Join(dir, DefaultDBFile), dir)
}

// IsPostgresURL reports whether dsn names a PostgreSQL database.
func IsPostgresURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// resolve is the database the flags name: a postgres:// URL or the
// embedded file's path. The command line wins over the environment; in the
// environment, $QL_DATABASE_URL wins over $QL_DATA_DIR.
func (f *dbFlags) resolve(opts Options) (string, error) {
	fs := f.cmd.Flags()
	dirArg := onCommandLine(fs.Lookup("data-dir"))
	urlFlag := urlFlagOf(fs)
	urlArg := urlFlag != nil && onCommandLine(urlFlag)
	switch {
	case dirArg && urlArg:
		return "", Usagef("give --data-dir (the embedded database) or --database-url (PostgreSQL), not both")
	case !dirArg && !urlArg && opts.OpenPostgres != nil && readsAdminURL(f.cmd) && os.Getenv(EnvAdminURL) != "":
		u, err := Getenv(os.Getenv, EnvAdminURL)
		if err != nil {
			return "", err
		}
		if !IsPostgresURL(u) {
			return "", Usagef("$%s must start with postgres:// or postgresql://", EnvAdminURL)
		}
		return u, nil
	case urlArg || (!dirArg && f.url != ""):
		if !IsPostgresURL(f.url) {
			return "", Usagef("--database-url (or $QL_DATABASE_URL) must start with postgres:// or postgresql://; the embedded database is chosen with --data-dir DIR")
		}
		return f.url, nil
	}
	if opts.OpenPostgres == nil && !dirArg {
		u, err := Getenv(os.Getenv, "QL_DATABASE_URL")
		if err != nil {
			return "", err
		}
		if u != "" {
			return "", Usagef("$QL_DATABASE_URL is set, but this %s build has no PostgreSQL support; use the full ql binary, or unset it to use --data-dir", opts.Binary)
		}
	}
	dir := cmp.Or(f.dataDir, ".")
	switch {
	case IsPostgresURL(dir) && opts.OpenPostgres == nil:
		return "", Usagef("--data-dir (or $QL_DATA_DIR) is a directory, and this %s build has no PostgreSQL support: use the full ql binary for that database", opts.Binary)
	case IsPostgresURL(dir):
		return "", Usagef("--data-dir (or $QL_DATA_DIR) is a directory; give a PostgreSQL URL as --database-url or in $QL_DATABASE_URL")
	}
	// Its shape only: whether the command may write it is checked where
	// it opens it to write.
	if err := CheckDataDir(dir, false); err != nil {
		return "", err
	}
	return filepath.Join(dir, DefaultDBFile), nil
}

// openBackend opens the database for writing definitions (the embedded
// file is created and migrated on first use), refused while the clock
// reads behind it (refuseClockBehind).
func openBackend(ctx context.Context, opts Options, f *dbFlags) (*Backend, error) {
	b, err := open(ctx, opts, f, false)
	return refuseClockBehind(ctx, f, b, err)
}

// openExisting opens the database for reading: a missing embedded file is
// an error, not a silently created empty database, and an existing one is
// opened read-only.
func openExisting(ctx context.Context, opts Options, f *dbFlags) (*Backend, error) {
	return open(ctx, opts, f, true)
}

// openExistingForWrite opens an existing database for writing: a missing
// embedded file is an error, never created empty. Given --api-url, it is
// the server's API, which writes to the server's database. It is refused
// while the clock reads behind the database (refuseClockBehind).
func openExistingForWrite(ctx context.Context, opts Options, f *dbFlags) (*Backend, error) {
	b, err := openExistingWritable(ctx, opts, f)
	return refuseClockBehind(ctx, f, b, err)
}

// refuseClockBehind closes b and refuses the command while the clock this
// process dates its writes by reads behind the newest time the embedded
// database recorded, as a server holds its own writes then: a trigger
// applied or enabled now would take its next fire time from that clock
// and fire once NTP moves it forward. --clock-behind-ok writes all the
// same. A server's API holds for its own clock, and PostgreSQL dates by
// its own: the flag has nothing to override there and is refused.
func refuseClockBehind(ctx context.Context, f *dbFlags, b *Backend, err error) (*Backend, error) {
	switch {
	case err != nil:
		return nil, err
	case b.RefuseClockBehind == nil && f.clockBehindOK:
		b.Close()
		return nil, Usagef("--%s is for a command writing an embedded database itself: a server given --api-url holds for its own clock "+
			"(restart it with --clock-wait 0 to take its clock as right) and PostgreSQL dates by its own; leave the flag out", FlagClockBehindOK)
	case b.RefuseClockBehind == nil || f.clockBehindOK:
		return b, nil
	}
	if err := b.RefuseClockBehind(ctx, "--"+FlagClockBehindOK); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// openExistingWritable is openExistingForWrite without the clock's check,
// for the commands that date nothing by this host's clock: the lists of
// credentials (`tokens list`, `users list`), which write nothing but which
// only the writing opener serves; a retention pass, which deletes by age
// (a clock behind deletes less, never more); and a cancel, which the store
// dates no earlier than the newest time the database recorded, so a Run
// can be stopped while the clock reads behind it.
func openExistingWritable(ctx context.Context, opts Options, f *dbFlags) (*Backend, error) {
	if f.server != "" {
		return openRemote(f)
	}
	dsn, err := f.resolve(opts)
	if err != nil {
		return nil, err
	}
	if !IsPostgresURL(dsn) {
		if err := mustExist(f.cmd, dsn); err != nil {
			return nil, err
		}
	}
	return open(ctx, opts, f, false)
}

// RefusalNoDatabase is the reason of a command refused because its
// --data-dir holds no database: what it names does not exist (not_found,
// exit 1), as a trigger name no trigger has, and nothing was created.
const RefusalNoDatabase qlerror.Reason = "data_dir_no_database"

func mustExist(cmd *cobra.Command, path string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return qlerror.New(qlerror.NotFound, "no QingLong database at %s: start with `ql serve` or `ql apply -f FILE` there, or point --data-dir (or $QL_DATA_DIR) at the directory of an existing one%s%s", path, apiUnused(cmd), adminURLUnused(cmd)).
			Because(RefusalNoDatabase, "db", path)
	}
	return nil
}

// apiUnused is what a missing database's error adds when $QL_API_URL is
// set for a command that has no --api-url: the user meant to reach a
// server, and "no database here" alone would not say that this command
// only ever opens a database. It lists the commands that do ask a server,
// read from the command tree so the list cannot go stale.
func apiUnused(cmd *cobra.Command) string {
	if cmd == nil || os.Getenv("QL_API_URL") == "" || cmd.Flags().Lookup("api-url") != nil {
		return ""
	}
	root := cmd.Root()
	var via []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("api-url") != nil {
			via = append(via, strings.TrimPrefix(c.CommandPath(), root.Name()+" "))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return fmt.Sprintf(". $QL_API_URL is set, but %s works on a database, never through a server's API (the commands that can: %s); run it where the database is, or use the server's console", cmd.CommandPath(), strings.Join(via, ", "))
}

// adminURLUnused is what a missing database's error adds when
// $QL_DATABASE_ADMIN_URL is set for a command that does not read it: the
// user meant the cluster, and "no database here" alone would not say
// where this command looks for it.
func adminURLUnused(cmd *cobra.Command) string {
	if cmd == nil || os.Getenv(EnvAdminURL) == "" || readsAdminURL(cmd) {
		return ""
	}
	return fmt.Sprintf(". $%s is set, but %s reads the cluster's database from --database-url or $QL_DATABASE_URL (only %s read $%s): "+
		"give it the URL of the role it needs there", EnvAdminURL, cmd.CommandPath(), adminURLReaders, EnvAdminURL)
}

func open(ctx context.Context, opts Options, f *dbFlags, mustExistRO bool) (*Backend, error) {
	if f.server != "" {
		return openRemote(f)
	}
	dsn, err := f.resolve(opts)
	if err != nil {
		return nil, err
	}
	if IsPostgresURL(dsn) {
		if opts.DatabaseWarnings != nil {
			for _, msg := range opts.DatabaseWarnings(dsn) {
				warn(ctx, opts.Binary, "warning: "+msg)
			}
		}
		return opts.OpenPostgres(ctx, dsn)
	}
	if mustExistRO {
		if err := mustExist(f.cmd, dsn); err != nil {
			return nil, err
		}
		return opts.OpenSQLiteReadOnly(ctx, dsn)
	}
	if err := CheckDataDir(filepath.Dir(dsn), true); err != nil {
		return nil, err
	}
	_, statErr := os.Stat(dsn)
	var created string
	if errors.Is(statErr, fs.ErrNotExist) && f.defaultLocation() {
		if err := clusterMeant(opts, dsn); err != nil {
			return nil, err
		}
		switch {
		case opts.OpenPostgres == nil:
			created = "created the embedded database " + dsn + " (no --data-dir or $QL_DATA_DIR was given)"
		default:
			created = "created the embedded database " + dsn + " (no --data-dir, --database-url, $QL_DATA_DIR or $QL_DATABASE_URL was given)"
		}
	}
	b, err := opts.OpenSQLite(context.WithValue(ctx, sayKey{}, func(msg string) { warn(ctx, opts.Binary, msg) }), dsn)
	// Said once the database exists: an open that failed created nothing.
	if err == nil && created != "" {
		warn(ctx, opts.Binary, created)
	}
	if err == nil && b.HeldNone {
		warn(ctx, opts.Binary, "the database file "+dsn+" held no QingLong database (it was empty): made a new, empty one in it; if it should hold your data "+
			"(a restore or a copy cut short, a full disk), restore it from a backup (docs/operations.md, \"Backup and restore\")")
	}
	if err == nil && len(b.Migrated) > 0 {
		warn(ctx, opts.Binary, "migrated the database "+dsn+" to this build's schema ("+strings.Join(b.Migrated, ", ")+
			"); older builds no longer open it: to go back, restore the backup taken before the upgrade (docs/operations.md, \"Upgrading\")")
	}
	return b, err
}

// clusterMeant refuses a command given no database, whose embedded one at
// dsn does not exist, while $QL_DATABASE_ADMIN_URL is set: the command was
// meant for the cluster, and neither a new file here nor a dry run against
// nothing would say what it does there.
func clusterMeant(opts Options, dsn string) error {
	switch {
	case os.Getenv(EnvAdminURL) == "":
		return nil
	case opts.OpenPostgres == nil:
		return Usagef("no embedded database at %s, and $%s is set, but this %s build has no PostgreSQL support: "+
			"use the full ql binary for that database, or --data-dir DIR to create an embedded database on purpose", dsn, EnvAdminURL, opts.Binary)
	default:
		return Usagef("no embedded database at %s, and $%s is set: this command reads the cluster's database from --database-url or "+
			"$QL_DATABASE_URL (only %s read $%s); give it the admin role's URL there, or --data-dir DIR to create an embedded database on purpose",
			dsn, EnvAdminURL, adminURLReaders, EnvAdminURL)
	}
}

// EnvAdminURL names the cluster admin role's URL, which `ql workers`,
// `ql users` and `ql tokens` read.
const EnvAdminURL = "QL_DATABASE_ADMIN_URL"

// adminURLCommands are the command groups of this tree that read
// $QL_DATABASE_ADMIN_URL when no database is given on the command line:
// they manage credentials, which on the cluster only the admin role may,
// so they read the variable `ql workers` (the cluster's other credential
// command) reads, and before $QL_DATABASE_URL as it does: an operator
// holding the runtime role's URL there for everyday commands and the
// admin role's in $QL_DATABASE_ADMIN_URL gets the role each command needs.
var adminURLCommands = []string{"users", "tokens"}

// adminURLReaders names the commands that read $QL_DATABASE_ADMIN_URL, for
// the refusals of those that do not.
const adminURLReaders = "`ql workers`, `ql users` and `ql tokens`"

// readsAdminURL reports whether cmd is one of adminURLCommands' subcommands.
func readsAdminURL(cmd *cobra.Command) bool {
	return cmd != nil && cmd.Parent() != nil && slices.Contains(adminURLCommands, cmd.Parent().Name())
}

// defaultLocation reports whether the embedded database is where nobody
// chose it to be (no --data-dir, no $QL_DATA_DIR): creating it there is
// said aloud, and refused while the cluster's admin URL is set, since the
// command was then meant for the cluster and a new file here would take
// its write unseen.
func (f *dbFlags) defaultLocation() bool {
	return !onCommandLine(f.cmd.Flags().Lookup("data-dir")) && os.Getenv("QL_DATA_DIR") == ""
}
