package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/ids"
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
converted, with why; nothing is stored. Each task keeps its name as its title, its command converted
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
			plan := qlimport.Make(panel, qlimport.Options{Project: project, Convert: crontab.Options{Zone: zone, ScriptsDir: scriptsDir, Binary: opts.Binary}})
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
	c.Flags().StringVar(&scriptsDir, "scripts-dir", "", "the folder, an absolute path, the panel's scripts folder is copied to: each task SCRIPT becomes node SCRIPT (.js), python3 -u SCRIPT (.py) or bash SCRIPT (.sh) run there (default: task lines stay as written, reported)")
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

// applyImport stores plan in the data directory: the secrets, then the
// definitions file, then the dependencies, each only where it changes
// something.
func applyImport(cmd *cobra.Command, opts Options, db *dbFlags, file []byte, plan qlimport.Plan) error {
	dsn, err := db.resolve(opts)
	if err != nil {
		return err
	}
	if IsPostgresURL(dsn) {
		return Usagef("--apply stores into a single node's data directory, whose secrets file and Dependencies page it fills; for a cluster, apply the printed file with `%s apply -f` and set the secrets in each worker's --secrets-file", opts.Binary)
	}
	doc, err := apply.Parse("qinglong import", file)
	if err != nil {
		return err
	}
	b, err := openBackend(cmd.Context(), opts, db)
	if err != nil {
		return err
	}
	defer b.Close()
	// The secrets first: a trigger firing as soon as it is published
	// finds the secrets its project's env names.
	out := textWriter{cmd.OutOrStdout()}
	if err := importSecrets(cmd.Context(), out, localSecrets{file: process.Secrets{Path: opts.SecretsFile(dsn)}, record: b.Record}, plan.Secrets); err != nil {
		return err
	}
	results, err := apply.Publish(cmd.Context(), b.Catalog, doc, ids.New, apply.Options{Actor: actor()})
	printApplied(cmd, results, apply.Result.String)
	if err != nil {
		return fileErrors(cmd, err)
	}
	return importDependencies(cmd.Context(), out, b, plan.Dependencies)
}

// importSecrets sets each secret whose value differs from the one stored.
func importSecrets(ctx context.Context, w io.Writer, store localSecrets, secrets []qlimport.Secret) error {
	names, err := store.file.Names()
	if err != nil {
		return err
	}
	unchanged := 0
	for _, s := range secrets {
		if slices.Contains(names, s.Name) {
			if have, err := store.file.Resolve([]string{s.Name}); err == nil && have[s.Name] == s.Value {
				unchanged++
				continue
			}
		}
		replaced, err := store.set(ctx, s.Name, s.Value)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "secret %s %s\n", s.Name, map[bool]string{true: "replaced", false: "set"}[replaced])
	}
	if unchanged > 0 {
		fmt.Fprintf(w, "%d %s unchanged\n", unchanged, map[bool]string{true: "secret", false: "secrets"}[unchanged == 1])
	}
	return nil
}

// dependencyImporter is a store that declares packages without
// installing them: a single node's.
type dependencyImporter interface {
	DependencyImport(ctx context.Context, actor string, pkgs []deps.Package) ([]deps.Package, error)
}

// importDependencies declares the packages not declared already.
func importDependencies(ctx context.Context, w io.Writer, b *Backend, pkgs []deps.Package) error {
	if len(pkgs) == 0 {
		return nil
	}
	im, ok := b.Dependencies.(dependencyImporter)
	if !ok {
		return Usagef("this database keeps no dependencies: install the packages on the hosts that run the commands")
	}
	declared, err := im.DependencyImport(ctx, actor(), pkgs)
	if err != nil {
		return err
	}
	for _, p := range declared {
		fmt.Fprintf(w, "dependency %s %s declared\n", p.Kind, p.Spec)
	}
	if n := len(pkgs) - len(declared); n > 0 {
		fmt.Fprintf(w, "%d %s declared already\n", n, map[bool]string{true: "dependency", false: "dependencies"}[n == 1])
	}
	return nil
}
