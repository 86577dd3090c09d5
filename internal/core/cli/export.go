package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

func exportCommand(opts Options) *cobra.Command {
	var db dbFlags
	var file string
	var all, withState, force bool
	ql := opts.Binary
	c := &cobra.Command{
		Use:   "export PROJECT [-o FILE] | export --all [--with-state] -o DIR",
		Short: "Print a project's current tasks and triggers as a definitions file",
		Long: `Print the project's current definitions as the YAML file ` + "`" + ql + ` apply -f` + "`" + ` takes: its status and
notifications, every task (those no trigger runs too) and every trigger, at their current
revisions, sorted by name, fields at their defaults left out. Applying the file as it is changes
nothing; edit it and apply it to change the project. Secrets stay references (env {secret: NAME},
a channel's signingSecret, urlSecret or tokenSecret), as the file that published them had them:
no secret's value is read.

What the file cannot say is noted on standard error, after "note: ": that the project is
archived (the file keeps status: archived), triggers that run an older revision of their task
than its current one (the task was applied without them), which applying the file moves to the
task's current revision, and the paused project or triggers (a pause is schedule state, not a
definition: applying the file elsewhere starts them unpaused).

-o FILE writes the file there instead of standard output (a new file gets mode 0600: it holds the
tasks' public environment values and the channels' URLs). An unknown PROJECT exits 1, naming the
projects there are.

--all writes every project, each to DIR/PROJECT.yaml (-o DIR, made 0700 when missing). A DIR
that holds a state file already, or with --with-state any file, is refused (export_dir_not_empty:
an earlier handover's files would be overwritten) unless --force.
--with-state (with --all, embedded database only) hands the database over to another` + opts.clusterOnly(`, as when
moving a standalone installation to the cluster`) + `: it also writes DIR/` + HandoverStateFile + `, each
trigger's schedule position (its next occurrence not yet admitted) and the project and trigger
pauses (since, note, who), for ` + "`" + ql + ` apply -f DIR/PROJECT.yaml --adopt-state DIR/` + HandoverStateFile + "`" + `.
It is refused while a server serves --data-dir (stop it first), holds the server's lock
while it reads, and marks the database handed over: ` + "`" + ql + ` serve` + "`" + ` on it is refused from
then on, until ` + "`" + ql + ` serve --take-back` + "`" + ` (docs/operations.md` + opts.clusterOnly(`, "Moving from standalone to the
cluster (and back)"`) + `). Exporting again writes the same positions: no server ran since.

` + apiHelp("export") + opts.clusterOnly(`
On the cluster both the admin and the runtime role's URL may read definitions.`),
		Example: "  " + ql + " export demo > demo.yaml\n  " + ql + " export demo -o demo.yaml   # edit it, then: " + ql + " apply -f demo.yaml\n" +
			"  " + ql + " export --all --with-state -o handover --data-dir /var/lib/qinglong   # the server stopped",
		Args: func(cmd *cobra.Command, args []string) error {
			if all {
				if len(args) > 0 {
					return Usagef("--all exports every project; leave out the project name %s", args[0])
				}
				return nil
			}
			return oneName("export takes one project name (or --all)", "project name")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if file == "json" || file == "table" || file == "yaml" {
				return Usagef("export always writes YAML, and -o names the file to write it to; for a file named %s write -o ./%s", file, file)
			}
			if withState && !all {
				return Usagef("--with-state hands the whole database over: give --all -o DIR")
			}
			if all {
				return exportAll(cmd, opts, &db, file, withState, force)
			}
			ex, err := exported(cmd, opts, &db, args[0])
			if err != nil {
				return err
			}
			for _, n := range ex.Notes {
				printNote(cmd, "", n.Message)
			}
			if err := notePaused(cmd, opts, &db, args[0]); err != nil {
				return err
			}
			if file == "" || file == "-" {
				_, err := cmd.OutOrStdout().Write(ex.YAML)
				return err
			}
			if err := os.WriteFile(file, ex.YAML, 0o600); err != nil {
				return qlerror.Wrap(qlerror.Invalid, err, "cannot write the definitions file")
			}
			fmt.Fprintf(textWriter{cmd.ErrOrStderr()}, "wrote project %s (%s, %s) to %s\n", args[0],
				plural.Count(ex.Tasks, "task", "tasks"), plural.Count(ex.Triggers, "trigger", "triggers"), file)
			return nil
		},
	}
	c.Flags().StringVarP(&file, "output", "o", "", "write the file to FILE instead of standard output (with --all: the directory DIR)")
	c.Flags().BoolVar(&all, "all", false, "export every project, each to DIR/PROJECT.yaml (-o DIR)")
	c.Flags().BoolVar(&withState, "with-state", false, "with --all: hand the embedded database over, writing its schedule positions and pauses to DIR/"+HandoverStateFile+
		" and marking it handed over (refused while a server serves it; serve --take-back undoes the mark)")
	c.Flags().BoolVar(&force, "force", false, "with --all: write into DIR even when it holds files already (with --with-state, or a state file there); they are overwritten")
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	return c
}

// exported is the project's export, read from the database or, given
// --api-url, made by the server: the same bytes either way.
func exported(cmd *cobra.Command, opts Options, db *dbFlags, name string) (apply.Exported, error) {
	if db.server != "" {
		c, err := remoteClient(db)
		if err != nil {
			return apply.Exported{}, err
		}
		return c.ExportProject(cmd.Context(), name)
	}
	b, err := openExisting(cmd.Context(), opts, db)
	if err != nil {
		return apply.Exported{}, err
	}
	defer b.Close()
	if b.Definitions == nil {
		return apply.Exported{}, fmt.Errorf("this build cannot export definitions of this database")
	}
	return apply.ExportProject(cmd.Context(), b.Definitions, name, nil)
}
