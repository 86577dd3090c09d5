// Package dbcli holds the cluster profile's database commands:
// `ql db migrate`, `ql db roles` and `ql db check`, and `ql workers`, which
// manages worker credentials through the admin role.
//
// Connection URLs and passwords come only from the environment or files,
// never from argv (which other users can read in the process table) and are
// never printed.
package dbcli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Environment variables the commands read besides their flags'. The URL
// is QL_DATABASE_URL, as for serve and the read commands; a command's own
// variable names the role it connects as.
const (
	EnvURL          = "QL_DATABASE_URL"
	EnvMigrationURL = "QL_DATABASE_MIGRATION_URL"
	EnvSuperuserURL = "QL_DATABASE_SUPERUSER_URL"
	EnvRuntimeURL   = "QL_DATABASE_RUNTIME_URL"
	// EnvPasswordPrefix + upper-case role kind + "_PASSWORD", e.g.
	// QL_DATABASE_RUNTIME_PASSWORD.
	EnvPasswordPrefix = "QL_DATABASE_"
)

// EnvVars lists every variable of Env* above and the passwords, for the
// documentation check.
func EnvVars() []string {
	vars := []string{EnvURL, EnvMigrationURL, EnvSuperuserURL, EnvRuntimeURL, EnvAdminURL}
	for _, k := range pgstore.RoleKinds {
		vars = append(vars, passwordEnv(k))
	}
	return vars
}

// DBCommand is `ql db` with its subcommands.
func DBCommand() *cobra.Command { return newDBCommand(os.Getenv) }

func newDBCommand(getenv func(string) string) *cobra.Command {
	db := &cobra.Command{
		Use:   "db",
		Short: "Manage the cluster's PostgreSQL control database",
		Long: "Manage the cluster's PostgreSQL control database. The URLs and passwords come from the environment only\n" +
			"($" + EnvURL + " and the variables each command names); every flag can also come from the environment\n" +
			"as QL_<FLAG> (e.g. QL_ROLE_PREFIX).",
	}
	var prefix string
	db.PersistentFlags().StringVar(&prefix, "role-prefix", pgstore.DefaultRolePrefix, "prefix of the five role names")
	cli.BindEnv(db.PersistentFlags(), "role-prefix")
	db.AddCommand(migrateCommand(getenv), rolesCommand(getenv, &prefix), checkCommand(getenv, &prefix))
	return db
}

func migrateCommand(getenv func(string) string) *cobra.Command {
	return &cobra.Command{
		Use:     "migrate",
		Short:   "Apply the pending schema migrations",
		Example: "  QL_DATABASE_MIGRATION_URL=postgres://ql_migration@db.example/qinglong ql db migrate   # the password in PGPASSWORD",
		Long: "Applies the migrations embedded in this binary, each in its own transaction under an advisory lock.\n" +
			"Connects with $" + EnvMigrationURL + " (else $" + EnvURL + ") as the migration role, or a superuser for the first install.\n" +
			"Then publishes again, scoped to its own scheme, host and port, the pull task of each subscription an earlier\n" +
			"release wrote with the git credential helper for every host (one new revision each).\n" +
			"Run `ql db roles` afterwards so new tables get their grants.",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			url, err := urlFrom(cmd, getenv, EnvMigrationURL)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			began := time.Now()
			// Each migration is named once, as it begins: one that takes
			// long (a large table) is then the last line shown, and the
			// summary does not list them all again.
			applied, err := pgstore.Migrate(cmd.Context(), url, func(line string) { fmt.Fprintln(out, line) })
			if err != nil {
				return pgstore.ForCommand(err)
			}
			fmt.Fprintln(out, migrated(applied, len(pgstore.Stream()), time.Since(began)))
			rescopeSubscriptions(cmd.Context(), url, out)
			if len(applied) > 0 {
				fmt.Fprintln(out, "next: run `ql db roles` so every role gets exactly its grants on the new tables")
			}
			return nil
		},
	}
}

// migrated is the summary of a migrate that applied these of a stream of
// known migrations in took: each count with its noun in the right number.
func migrated(applied []pgstore.Applied, known int, took time.Duration) string {
	if len(applied) == 0 {
		return "up to date: " + plural.Count(known, "migration", "migrations") + " applied, none pending"
	}
	return fmt.Sprintf("applied %s in %s; the schema is now at %s",
		plural.Count(len(applied), "migration", "migrations"), took.Round(time.Millisecond), applied[len(applied)-1].ID)
}

func rolesCommand(getenv func(string) string, prefix *string) *cobra.Command {
	var passwordDir string
	cmd := &cobra.Command{
		Use:   "roles",
		Short: "Create or verify the five least-privilege roles and install their grants",
		Long: "Creates or verifies the LOGIN roles migration, admin, runtime and maintenance and the NOLOGIN role worker_ingress\n" +
			"(with --role-prefix) and installs the exact grant matrix; pins every role's search_path to pg_catalog, pg_temp and\n" +
			"sets the statement and idle-in-transaction timeouts of the others; revokes every role membership from or to them.\n" +
			"Nothing connects as worker_ingress (the worker ingress runs as the runtime role): it may not log in and has no\n" +
			"password, and one it had is removed. maintenance deletes what retention lets go (`ql retention run`, or replicas\n" +
			"given its URL); no other role may.\n" +
			"Connects with $" + EnvSuperuserURL + " (else $" + EnvURL + ").\n" +
			"Passwords are read from $" + EnvPasswordPrefix + "<ROLE>_PASSWORD (e.g. " + passwordEnv(pgstore.RoleRuntime) + ") or from\n" +
			"--password-file-dir, a directory with one file per role kind (migration, admin, runtime, maintenance; not the\n" +
			"role's full name: any other file there is refused, and a worker_ingress file is read but never set), each readable\n" +
			"only by its owner. A password is required only to create a role; given for an existing role it replaces the old one.\n" +
			"Each role's line says whether it was created, its password set or its password unchanged.\n" +
			"Passwords are sent only as SCRAM verifiers and never printed.",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			url, err := urlFrom(cmd, getenv, EnvSuperuserURL)
			if err != nil {
				return err
			}
			names := pgstore.RoleNames(*prefix)
			passwords, err := readPasswords(getenv, passwordDir, names)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			cfg := pgstore.RolesConfig{Prefix: *prefix, Passwords: passwords, Log: func(line string) { fmt.Fprintln(out, line) },
				Done: func(k pgstore.RoleKind, outcome pgstore.RoleOutcome) {
					fmt.Fprintf(out, "role %s (%s): %s; %s\n", names.Name(k), k, outcome, pgstore.RoleSummary(k))
				}}
			if err := pgstore.EnsureRoles(cmd.Context(), url, cfg); err != nil {
				if pgstore.StateCode(err) == "insufficient_privilege" {
					// The store's generic hint points back at this very
					// command; what is wrong here is the role it connects as.
					return qlerror.New(qlerror.PermissionDenied, "permission denied: creating roles and installing grants needs a superuser (or a role with CREATEROLE "+
						"that owns the qinglong schema), and $%s (else $%s) names a role without it; give the superuser's URL there", EnvSuperuserURL, EnvURL)
				}
				return pgstore.ForCommand(err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&passwordDir, "password-file-dir", "", "directory holding one password file per role kind")
	cli.BindEnv(cmd.Flags(), "password-file-dir")
	return cmd
}

func checkCommand(getenv func(string) string, prefix *string) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Run the read-only readiness checks",
		Long: "Checks, in order and read-only: writable primary, supported version, migration history, capability row,\n" +
			"exact schema, a safe search_path, exact privileges and memberships, the roles' session timeouts and the\n" +
			"server settings the cluster needs, and that the role connected is no more than the runtime role\n" +
			"(no superuser, BYPASSRLS, CREATEROLE or CREATEDB, no owner of the schema, no other QingLong role) (docs/operations.md).\n" +
			"Connects with $" + EnvRuntimeURL + " (else $" + EnvURL + ").\n" +
			"Prints `ready`, or the failing check's stable code and what to do, and exits non-zero.",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			url, err := urlFrom(cmd, getenv, EnvRuntimeURL)
			if err != nil {
				return err
			}
			if err := pgstore.CheckRuntime(cmd.Context(), url, pgstore.RoleNames(*prefix)); err != nil {
				return pgstore.ForCommand(err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), "ready")
			return nil
		},
	}
}

// urlFrom is the command's own variable, else $QL_DATABASE_URL. A renamed
// variable still set is refused with its new name, and a missing URL is
// refused naming the variables: usage errors, like serve's missing URL.
// The refusal also says the command is the cluster's: someone who runs
// `ql workers list` or `ql db migrate` beside a standalone server would
// otherwise go looking for a PostgreSQL URL it never needs.
//
// A URL (or keyword/value string) that reaches another host without
// verifying its server, whose password comes from a password file others
// may read, or that lists several servers without keeping the writable one
// draws the warning every command given a database URL prints
// (pgstore.ConnWarnings), on the command's stderr.
func urlFrom(cmd *cobra.Command, getenv func(string) string, specific string) (string, error) {
	for _, name := range []string{specific, EnvURL} {
		u, err := cli.Getenv(getenv, name)
		if err != nil || u != "" {
			if err == nil && u != "" {
				for _, w := range pgstore.ConnWarnings(u) {
					fmt.Fprintln(cmd.ErrOrStderr(), "ql: warning: "+w.Text)
				}
			}
			return u, err
		}
	}
	return "", cli.Usagef("no database URL: set $%s (or $%s) to postgres://user@host:port/database; put the password in PGPASSWORD or a pgpass file, not on the command line. "+
		"This command is the cluster's (PostgreSQL); a standalone or edge data directory needs none of it: its server migrates the database at start and runs the commands itself, with no workers", specific, EnvURL)
}

// readPasswords collects passwords from the directory (when given) and the
// environment; the environment wins for a role present in both.
func readPasswords(getenv func(string) string, dir string, names pgstore.Roles) (map[pgstore.RoleKind]string, error) {
	out := make(map[pgstore.RoleKind]string)
	if dir != "" {
		if err := refuseStrangers(dir, names); err != nil {
			return nil, err
		}
	}
	for _, k := range pgstore.RoleKinds {
		if dir != "" {
			p, err := readPasswordFile(filepath.Join(dir, string(k)))
			if err != nil {
				return nil, err
			}
			if p != "" {
				out[k] = p
			}
		}
		p, err := cli.Getenv(getenv, passwordEnv(k))
		if err != nil {
			return nil, err
		}
		if p != "" {
			out[k] = p
		}
	}
	return out, nil
}

// refuseStrangers refuses a file in the password directory that is named
// for no role kind: the command reads only the kinds' names, so a file
// named otherwise (the role's full name, ql_runtime, say) would be skipped
// and a rotation made with it would silently change nothing.
func refuseStrangers(dir string, names pgstore.Roles) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("password file directory %s: %w", dir, err)
	}
	kinds := make([]string, 0, len(pgstore.RoleKinds))
	for _, k := range pgstore.RoleKinds {
		kinds = append(kinds, string(k))
	}
	for _, e := range entries {
		// Hidden entries are no one's misnamed password: a Kubernetes
		// secret volume keeps its ..data links there, an editor its swap.
		if slices.Contains(kinds, e.Name()) || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		for _, k := range pgstore.RoleKinds {
			if e.Name() == names.Name(k) {
				return qlerror.New(qlerror.Invalid, "password file %s is named for the role, not its kind: rename it %s; nothing was changed",
					filepath.Join(dir, e.Name()), filepath.Join(dir, string(k)))
			}
		}
		return qlerror.New(qlerror.Invalid, "%s in the password file directory names no role kind; the files there are named %s; rename or remove it; nothing was changed",
			filepath.Join(dir, e.Name()), strings.Join(kinds, ", "))
	}
	return nil
}

func passwordEnv(k pgstore.RoleKind) string {
	return EnvPasswordPrefix + strings.ToUpper(string(k)) + "_PASSWORD"
}

// readPasswordFile returns "" for a missing file and refuses one that
// other users can read.
func readPasswordFile(path string) (string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("password file %s: %w", path, err)
	}
	defer f.Close() //nolint:errcheck // read only
	info, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("password file %s: %w", path, err)
	}
	if info.Mode().Perm()&0o077 != 0 {
		// Invalid input (exit 2), as a worker's credential file others
		// may read: the same command succeeds only once the mode changes.
		return "", qlerror.New(qlerror.Invalid, "password file %s is readable by other users (mode %o); run chmod 600 on it; nothing was changed", path, info.Mode().Perm())
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", fmt.Errorf("password file %s: %w", path, err)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}
