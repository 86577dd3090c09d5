package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlimport"
	"github.com/qinglong/qinglong/internal/core/task"
)

func importCommand(opts Options) *cobra.Command {
	c := &cobra.Command{Use: "import", Short: "Move what another scheduler keeps into this one"}
	c.AddCommand(importQinglongCommand(opts))
	return c
}

func importQinglongCommand(opts Options) *cobra.Command {
	var db dbFlags
	var project, zone, scriptsDir string
	var doApply bool
	c := &cobra.Command{
		Use:   "qinglong DIR --project NAME --tz ZONE [--apply]",
		Short: "Preview, then import, a qinglong panel's tasks, subscriptions, environment variables and dependencies",
		Long: `Read the data folder of a qinglong panel (青龙: its /ql/data, holding db/database.sqlite, or /ql
itself) and show what it becomes here: without --apply, print the definitions file of its tasks and
subscriptions on standard output and, on standard error, the secrets, dependencies and every item not
converted, with why, and, by name only, what the panel's config/config.sh sets that is not taken here
(its notification keys, say) with what to do instead; nothing is stored. Each task keeps its name as its title, its command converted
as ` + "`" + opts.Binary + ` crontab convert` + "`" + ` converts the panel's crontab.list (give --scripts-dir to run "task
SCRIPT" with its interpreter there), a disabled task's trigger disabled; each subscription becomes the
labelled pull task the Subscriptions page lists. The environment variables of one name become the
secret PROJECT/NAME, their values joined by "&" as the panel gives them to its tasks, and the
project's env gives it to every task; the values disabled in the panel go in PROJECT/NAME.disabled,
given to no task. Values are never printed. The dependencies are declared for the Dependencies page,
not installed (its Install all installs them).
--apply stores it all in the data directory: the definitions published as ` + "`" + opts.Binary + ` apply` + "`" + ` does,
the secrets set in its secrets file, the dependencies declared, each change audited. Importing the
same folder again changes nothing. The panel's database is opened read-only and immutable, so it is
neither written nor locked; a database the panel is writing (a journal beside it) is refused: stop
the panel, or import a copy made while it was stopped.`,
		Example: "  " + opts.Binary + " import qinglong /srv/ql/data --project jd --tz Asia/Shanghai --scripts-dir /srv/ql/scripts > jd.yaml\n" +
			"  " + opts.Binary + " import qinglong /srv/ql/data --project jd --tz Asia/Shanghai --scripts-dir /srv/ql/scripts --apply",
		Args: oneArg("import qinglong takes one folder: the panel's data folder (its /ql/data)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkProjectAndZone(project, zone); err != nil {
				return err
			}
			if scriptsDir != "" && task.CheckWorkingDir(scriptsDir) != nil {
				return Usagef("--scripts-dir %q must be an absolute, clean path: the scripts folder as the server sees it (like /ql/scripts)", scriptsDir)
			}
			panel, err := qlimport.Read(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			plan := qlimport.Make(panel, qlimport.Options{Project: project, Convert: crontab.Options{Zone: zone, ScriptsDir: scriptsDir, Binary: opts.Binary, Edge: opts.OpenPostgres == nil}})
			plan.Definitions.Header = "# Imported from the qinglong panel's folder " + panel.Dir + ".\n" + crontab.Header(opts.crontabServer())
			file, err := plan.Definitions.Definitions(project, opts.crontabServer())
			if err != nil {
				return err
			}
			printImportPreview(textWriter{cmd.ErrOrStderr()}, plan, doApply)
			if !doApply {
				_, err := cmd.OutOrStdout().Write(file)
				return err
			}
			return applyImport(cmd, opts, &db, file, plan)
		},
	}
	c.Flags().StringVar(&project, "project", "", "the project the tasks, subscriptions and secrets go in (required)")
	c.Flags().StringVar(&zone, "tz", "", "IANA time zone of the panel's schedules (required), e.g. Asia/Shanghai")
	c.Flags().StringVar(&scriptsDir, "scripts-dir", "", "the folder, an absolute path, the panel's scripts folder is copied to: each task SCRIPT becomes node SCRIPT (.js), python3 -u SCRIPT (.py) bash SCRIPT (.sh) or tsx SCRIPT (.ts) run there (default: task lines stay as written, reported)")
	BindEnv(c.Flags(), "scripts-dir")
	c.Flags().BoolVar(&doApply, "apply", false, "store what the preview shows: publish the definitions, set the secrets, declare the dependencies")
	addDBWriteFlags(c, &db, opts.OpenPostgres != nil)
	return c
}

// printImportPreview says what the import stores, or would store without
// apply, beside the definitions file: the secrets (never their values),
// the dependencies, and every item not converted or converted with a
// note, by what it is in the panel.
func printImportPreview(w io.Writer, plan qlimport.Plan, applying bool) {
	// Applying, what is stored is said after it: here, what the panel
	// holds.
	setWord, declareWord := "would be set", "would be declared"
	if applying {
		setWord, declareWord = "from the panel", "from the panel"
	}
	entries := plan.Definitions.Entries
	disabled := 0
	for _, e := range entries {
		if e.Disabled {
			disabled++
		}
	}
	fmt.Fprintf(w, "tasks and subscriptions: %d converted (%d of them disabled)\n", len(entries), disabled)
	fmt.Fprintf(w, "secrets: %d %s (values not shown)\n", len(plan.Secrets), setWord)
	for _, s := range plan.Secrets {
		given := "in the project's env as " + s.Variable
		if !s.Given {
			given = "disabled in the panel: given to no task"
		}
		line := fmt.Sprintf("  %s: %s, %d %s", s.Name, given, s.Values, map[bool]string{true: "value", false: "values joined by &"}[s.Values == 1])
		if len(s.Remarks) > 0 {
			line += "; remarks: " + strings.Join(s.Remarks, "; ")
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "dependencies: %d %s (installed from the Dependencies page)\n", len(plan.Dependencies), declareWord)
	for _, k := range deps.Kinds {
		var specs []string
		for _, p := range plan.Dependencies {
			if p.Kind == k {
				specs = append(specs, p.Spec)
			}
		}
		if len(specs) > 0 {
			fmt.Fprintf(w, "  %s: %s\n", k, strings.Join(specs, " "))
		}
	}
	skipped, notes := slices.Clone(plan.Skipped), slices.Clone(plan.Notes)
	for _, p := range plan.Definitions.Problems {
		it := qlimport.Item{Ref: plan.Refs[p.Line-1], Why: p.Why}
		if p.Kind == crontab.NotConverted {
			skipped = append(skipped, it)
		} else {
			notes = append(notes, it)
		}
	}
	for _, list := range []struct {
		head  string
		items []qlimport.Item
	}{{"not converted", skipped}, {"notes", notes}} {
		if len(list.items) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s:\n", list.head)
		for _, it := range list.items {
			fmt.Fprintf(w, "  %s: %s\n", it.Ref, it.Why)
		}
	}
}

// applyImport stores plan in the data directory as qlimport.Apply does,
// and says what it changed.
func applyImport(cmd *cobra.Command, opts Options, db *dbFlags, file []byte, plan qlimport.Plan) error {
	dsn, err := db.resolve(opts)
	if err != nil {
		return err
	}
	if IsPostgresURL(dsn) {
		return Usagef("--apply stores into a single node's data directory, whose secrets file and Dependencies page it fills; for a cluster, apply the printed file with `%s apply -f` and set the secrets in each worker's --secrets-file", opts.Binary)
	}
	b, err := openBackend(cmd.Context(), opts, db)
	if err != nil {
		return err
	}
	defer b.Close()
	st := qlimport.Stores{Secrets: process.Secrets{Path: opts.SecretsFile(dsn)}, Record: b.Record, Catalog: b.Catalog}
	if d, ok := b.Dependencies.(qlimport.Declarer); ok {
		st.Dependencies = d
	}
	done, err := qlimport.Apply(cmd.Context(), st, plan, file, actor())
	out := textWriter{cmd.OutOrStdout()}
	for _, s := range done.Secrets {
		fmt.Fprintf(out, "secret %s %s\n", s.Name, map[bool]string{true: "replaced", false: "set"}[s.Replaced])
	}
	if n := done.SecretsUnchanged; n > 0 {
		fmt.Fprintf(out, "%d %s unchanged\n", n, map[bool]string{true: "secret", false: "secrets"}[n == 1])
	}
	printApplied(cmd, done.Results, apply.Result.String)
	for _, p := range done.Declared {
		fmt.Fprintf(out, "dependency %s %s declared\n", p.Kind, p.Spec)
	}
	if n := done.DeclaredAlready; n > 0 {
		fmt.Fprintf(out, "%d %s declared already\n", n, map[bool]string{true: "dependency", false: "dependencies"}[n == 1])
	}
	return fileErrors(cmd, err)
}
