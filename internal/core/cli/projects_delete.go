package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
	"github.com/qinglong/qinglong/internal/core/view"
)

// keptShown bounds the log files a deletion lists that it could not remove.
const keptShown = 10

func projectsDeleteCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out string
	var dryRun, yes bool
	c := &cobra.Command{
		Use:   "delete PROJECT [--dry-run] [--yes]",
		Short: "Delete an archived project with its tasks, triggers, Runs, logs, ledger and secrets",
		Long: commandText(opts.Binary, `Delete an archived project (PROJECT is its name or id) and everything of it: its tasks and triggers
with every revision, their schedule rows, pause records and occurrence ledger, its Runs with their
attempts, events and logs, its notifications, and the secrets of its namespace (PROJECT/NAME) in the
data directory's secrets file. It cannot be undone: take a backup first if any of it may matter.

It is refused, deleting nothing (exit 4), while the project is active (project_not_archived: set
status: archived in its definitions file and apply it, which stops its scheduling), while any of its
Runs has not finished (project_has_unfinished_runs: cancel them with {ql runs cancel} or wait), and
while a live API token is bound to it (project_has_bound_tokens: revoke it with {ql tokens revoke};
the freed name would otherwise give the token a project created later under it).

--dry-run prints what would go and the refusal the deletion would meet, and deletes nothing. Without
--yes the command shows the same and asks for the project's name to be typed; where standard input is
not a terminal (a script) it is refused, exit 2, confirmation_required. The rows go in one
transaction, the Runs in batches of 500 with the count so far printed after each (a server on the
same database waits for it meanwhile), then the log files: a file that cannot be removed is named,
with the cause, and running the same command again (the project's name) removes what was left. The
publish audit keeps its records of the project.
`) + opts.clusterOnly(`
On PostgreSQL it needs the maintenance role, which deletes Runs: $`+EnvMaintenanceURL+` is used when
set, else --database-url / $QL_DATABASE_URL; a --database-url or --data-dir typed on the command line
wins over the variable. Secrets are in each worker's and replica's own
--secrets-file, not in the database: remove the project's there with `+"`ql secrets delete PROJECT/NAME --secrets-file FILE`"+`.`),
		Example: "  " + opts.Binary + " projects delete legacy --dry-run\n  " + opts.Binary + " projects delete legacy            # asks for the name\n  " +
			opts.Binary + " projects delete legacy --yes      # in a script",
		Args: oneChecked("projects delete takes one project: its name or id", func(s string) error { return validate.Name("project", s) }),
	}
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if err := checkOutput(out); err != nil {
			return err
		}
		useMaintenanceURL(cmd, opts, &db)
		b, err := openExistingForWrite(cmd.Context(), opts, &db)
		if err != nil {
			return err
		}
		defer b.Close()
		if b.ProjectDelete == nil {
			return fmt.Errorf("this database cannot delete projects from here")
		}
		w, progress := cmd.OutOrStdout(), cmd.OutOrStdout()
		if out == "json" {
			progress = cmd.ErrOrStderr()
		}
		name := args[0]
		if dryRun || !yes {
			res, err := b.ProjectDelete.ProjectDelete(cmd.Context(), project.DeleteRequest{Project: name, DryRun: true})
			if err != nil {
				return err
			}
			if dryRun && out == "json" && res.WouldRefuse == nil {
				return writeJSON(w, view.NewProjectDeletion(res))
			}
			printDeletion(progress, res)
			if res.WouldRefuse != nil {
				return res.WouldRefuse
			}
			if dryRun {
				return nil
			}
			if err := confirmDeletion(cmd, res.ProjectName); err != nil {
				return err
			}
		}
		res, err := b.ProjectDelete.ProjectDelete(cmd.Context(), project.DeleteRequest{Project: name, Actor: actor(), OnBatch: func(c project.DeleteCounts) {
			fmt.Fprintf(progress, "deleted %s, %s, %s so far\n", plural.Count(c.Runs, "Run", "Runs"), plural.Count(c.Attempts, "attempt", "attempts"), plural.Count(c.Events, "event", "events"))
		}})
		if err != nil {
			return err
		}
		if out == "json" {
			if err := writeJSON(w, view.NewProjectDeletion(res)); err != nil {
				return err
			}
		} else {
			printDeletion(w, res)
		}
		if dsn, err := db.resolve(opts); err == nil && IsPostgresURL(dsn) && !res.Leftovers {
			fmt.Fprintf(progress, "secrets are not in the database: remove the project's (%s/NAME) from each worker's and replica's --secrets-file "+
				"(`ql secrets delete %s/NAME --secrets-file FILE` on each machine)\n", res.ProjectName, res.ProjectName)
		}
		return deletionLeft(res)
	}
	addDBWriteFlags(c, &db, opts.OpenPostgres != nil)
	addOutputFlag(c, &out)
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print what would be deleted and whether the deletion would be refused; delete nothing")
	c.Flags().BoolVar(&yes, "yes", false, "delete without asking for the project's name to be typed (needed where standard input is not a terminal)")
	return c
}

// printDeletion says what a deletion removed, or would remove.
func printDeletion(w io.Writer, res project.DeleteResult) {
	switch {
	case res.Leftovers:
		fmt.Fprintf(w, "project %s was deleted before: removed the log files it left\n", res.ProjectName)
	case res.DryRun:
		fmt.Fprintf(w, "project %s (%s): deleting it would remove %s\n", res.ProjectName, res.ProjectID, res.Deleted)
	default:
		fmt.Fprintf(w, "deleted project %s (%s): %s\n", res.ProjectName, res.ProjectID, res.Deleted)
	}
	verb := "removed"
	if res.DryRun {
		verb = "would remove"
	}
	if len(res.Secrets) > 0 {
		fmt.Fprintf(w, "%s %s from the secrets file: %s\n", verb, plural.Count(len(res.Secrets), "secret", "secrets"), strings.Join(res.Secrets, ", "))
	}
	if res.SecretsErr != nil {
		fmt.Fprintf(w, "could not read or edit the secrets file, so the project's secrets (%s/…) are still there: %v; remove them with `ql secrets delete %s/NAME`\n",
			res.ProjectName, res.SecretsErr, res.ProjectName)
	}
	for i, k := range res.Kept {
		if i == keptShown {
			fmt.Fprintf(w, "… and %s more\n", plural.Count(len(res.Kept)-keptShown, "log file", "log files"))
			break
		}
		fmt.Fprintf(w, "could not remove the log file %s: %v\n", k.Path, k.Err)
	}
}

// deletionLeft is the error of a deletion that left log files on disk
// (exit 4): the rows are gone, the files are named for the next try.
func deletionLeft(res project.DeleteResult) error {
	if len(res.Kept) == 0 {
		return nil
	}
	return qlerror.New(qlerror.FailedPrecondition, "project %s is deleted, but %s could not be removed (listed above): "+
		"make them removable (their directory writable by this user, the file system mounted read-write) or remove them by hand (`rm PATH`), "+
		"then run the same command again: it removes what is left", res.ProjectName, plural.Count(len(res.Kept), "log file", "log files"))
}

// confirmDeletion asks for the project's name to be typed on a terminal;
// elsewhere it refuses, since nobody is there to answer.
func confirmDeletion(cmd *cobra.Command, name string) error {
	in := cmd.InOrStdin()
	if f, ok := in.(*os.File); !ok || !isTerminal(f) {
		return qlerror.New(qlerror.Invalid, "deleting project %s cannot be undone, and standard input is not a terminal to confirm it on: "+
			"give --yes to delete it (see --dry-run for what goes), or run the command on a terminal and type the name", name).
			Because(project.RefusalConfirmationRequired, "name", name)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "This cannot be undone. Type the project's name (%s) to delete it: ", name)
	line, err := bufio.NewReader(io.LimitReader(in, 1024)).ReadString('\n')
	if err != nil && err != io.EOF {
		return fmt.Errorf("reading the confirmation: %w", err)
	}
	if strings.TrimSpace(line) != name {
		return Usagef("the name typed is not %s; nothing was deleted", name)
	}
	return nil
}
