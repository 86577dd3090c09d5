package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
)

func applyCommand(opts Options) *cobra.Command {
	var db dbFlags
	var file string
	var dryRun, createOnly bool
	var ifMatch, out, adoptFrom string
	c := &cobra.Command{
		Use:   "apply -f FILE",
		Short: "Create or update a project's tasks and triggers from a YAML file",
		Long:  applyLong(opts),
		Example: "  " + opts.Binary + " apply -f examples/sample.yaml\n" +
			"  " + opts.Binary + " apply --dry-run -f - < examples/sample.yaml",
		Args: fileFlagOnly,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if file == "" {
				return Usagef("apply takes one file, given with -f FILE (-f - reads standard input)")
			}
			if err := checkOutput(out); err != nil {
				return err
			}
			if adoptFrom != "" && (db.server != "" || dryRun || out == "json") {
				return Usagef("--adopt-state writes the handed-over state into the database itself and says so line by line: leave out --api-url, --dry-run and -o json")
			}
			if db.server != "" {
				return applyRemote(cmd, &db, file, applyMode{dryRun: dryRun, createOnly: createOnly}, ifMatch, out)
			}
			doc, err := apply.ParseFile(file, cmd.InOrStdin())
			if err != nil {
				return fileErrors(cmd, err)
			}
			// The state file is read and checked before anything is
			// published: a wrong or broken one refuses the whole apply.
			var adopting *projectState
			if adoptFrom != "" {
				st, err := readStateFile(adoptFrom, doc.Project)
				if err != nil {
					return err
				}
				adopting = &st
			}
			var gathered *applyJSON
			if out == "json" {
				gathered = gatherApplyJSON(cmd)
			}
			if dryRun {
				err := fileErrors(cmd, planApply(cmd, opts, &db, doc, ifMatch, createOnly))
				if err == nil && gathered != nil {
					err = gathered.print(cmd, true, doc.File, doc.Project)
				}
				return err
			}
			b, err := openBackend(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if adopting != nil && !canAdopt(b) {
				return errCannotAdopt
			}
			printNotes(cmd, doc.Project, apply.Notes(doc, apply.NoteScope{RunsHere: b.Catalog.Executor == task.LocalProcess, OnWorkers: b.Catalog.Executor == task.RemoteWorker, NowMs: time.Now().UnixMilli(), PathMissing: process.PathMissing}))
			o := applyOptions(ifMatch)
			o.CreateOnly, o.Actor = createOnly, actor()
			results, err := apply.Publish(cmd.Context(), b.Catalog, doc, ids.New, o)
			printApplied(cmd, results, apply.Result.String)
			if err == nil {
				if err := printUnlisted(cmd, b.Definitions, doc, results); err != nil {
					return err
				}
			}
			if err == nil && adopting != nil {
				if err := adoptState(cmd.Context(), cmd, b, adoptFrom, doc.Project, *adopting); err != nil {
					return err
				}
			}
			// The secrets are noted after the results: the file is applied,
			// and what it still needs is the last thing to read. Only the
			// missing ones: this command may run as another user than the
			// server (root, an operator's account), so a secrets file it
			// cannot use says nothing of whether the server can; the server
			// notes that (its console and its apply API).
			if err == nil && b.MissingSecrets != nil {
				if n, ok := apply.SecretsNote(doc, b.MissingSecrets); ok {
					printNotes(cmd, doc.Project, []apply.Note{n})
				}
			}
			if err == nil && gathered != nil {
				err = gathered.print(cmd, false, doc.File, doc.Project)
			}
			return fileErrors(cmd, err)
		},
	}
	c.Flags().StringVarP(&file, "file", "f", "", "definitions file (YAML); - for standard input")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "validate the file and show what would change; write nothing")
	c.Flags().Bool("verbose", false, "print every unchanged object on its own line too, not one line counting them (it has no -v: -v before any command prints the version)")
	c.Flags().StringVar(&ifMatch, "if-match", "", "publish only if the project is still at this revision (as "+opts.Binary+" projects show prints it); refused, exit 4, when it changed")
	c.Flags().BoolVar(&createOnly, "create-only", false, "apply only what does not exist yet: refused, nothing applied, exit 4 (create_only_would_change), when the file would change anything that exists, naming each")
	c.Flags().StringVar(&adoptFrom, "adopt-state", "", "after applying, start each trigger's schedule at the position the state file (written by export --all --with-state) "+
		"handed over, and set its pauses; refused for a trigger that already admitted Runs here")
	addDBWriteFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	addOutputFlag(c, &out)
	return c
}

// applyOptions are a local apply's: over the project revision ifMatch,
// when given.
func applyOptions(ifMatch string) apply.Options {
	if ifMatch == "" {
		return apply.Options{}
	}
	return apply.Options{IfMatch: []string{ifMatch}}
}

// applyLong is apply's help; placement is a cluster setting, so the edge
// binary's help only says it stores it.
func applyLong(opts Options) string {
	retry := `retry runs a Run's command again after the outcomes it names, on every profile;
placement acts only where remote workers run commands (` + opts.Binary + ` serve with workers):
single-node profiles store it with the task and print a note, but run every Run on
this machine.`
	refusal := "A server whose database role may not publish"
	example := `
      retry: {maxAttempts: 3, backoff: 10s, on: [lost]}
      placement: {labels: {region: eu}}                   # workers only`
	if opts.OpenPostgres == nil {
		retry = `retry runs a Run's command again after the outcomes it names; placement is stored with
the task, with a note: ` + opts.Binary + ` runs every Run on this machine.`
		refusal = "A server that may not publish"
		example = ""
	}
	return `Converge the database to a definitions file: one project with its tasks and triggers.
Prints each object created or updated on its own line, how it changed, and the unchanged ones as
one line counting them ("1 project, 24 tasks and 1,475 triggers unchanged"; --verbose: a line
each). The whole file is validated before
anything is written: every mistake of an invalid file is reported at once, in file
order, each on its own line of standard error as FILE:LINE:COLUMN: message naming the
field (FILE:LINE: for a whole entry's mistake), at most 50 and then a line counting the
rest, and last their count; nothing is written. A YAML syntax error, or a top level,
tasks or triggers of the wrong shape, is reported alone: the rest cannot be read.
The file is applied in one transaction: every object of it is published, or none is.
Objects missing from the file are left as they are, so a large project can be split
over several files; the enabled triggers of the project that the file does not name are
noted, as they keep running (a trigger renamed in the file runs under its old name too).

-f - reads the file from standard input. A file holds one YAML document (a second one,
after ---, is refused), at most 4 MiB, 10,000 tasks and 10,000 triggers. YAML anchors,
aliases and non-string keys are refused: other YAML tools would read such a file
differently. Task environment names starting with QL_
are reserved for the variables QingLong sets (QL_RUN_ID, QL_SCHEDULED_AT, QL_ORIGIN and others). On an embedded
database, apply notes the secrets the file names (env {secret: NAME}, a channel's
signingSecret, urlSecret or tokenSecret) that qinglong-secrets.json does not define yet;
it cannot judge a secrets file it may not read, as the server may run as another user
(--api-url asks the server, which also notes a secrets file it cannot use, and why).

` + retry + `

A trigger whose jitter is longer than the time between two of its occurrences is applied
with a note: the later occurrence may fall due before the earlier one is admitted, and is
then caught up like a missed one, so the trigger runs less often than its cron says. An
enabled trigger with no occurrence left before its endAt is applied with a note: it fires no more.

--create-only applies only what does not exist yet, for a team adding its tasks and triggers to a
project others publish too: a file that would change anything that exists (a task's or trigger's
content, the project's title, status or notifications) is refused, exit 4, reason
create_only_would_change, naming each object it would change and how, and nothing is applied;
objects the file holds as they are stay unchanged, so the same file applied again succeeds.
With --dry-run it is checked the same way.

--if-match REVISION publishes the file only if the project is still at REVISION, as
` + "`" + opts.Binary + ` projects show PROJECT` + "`" + ` printed it before you edited the file: the revision is read again in
the transaction that publishes, so an apply from anywhere else (another server's API, another
` + "`" + opts.Binary + ` apply` + "`" + `) made since is found, even one made at the same moment. A project that changed
since is refused, nothing applied, exit 4: "project P changed since revision X (now Y)";
read it again, apply your change to what it holds now, and apply that with the new revision.
A file that changes nothing in the project as it is now is not refused: it prints every object
unchanged and exits 0, so an apply asked again after its answer was lost (its own publish moved
the revision) succeeds. A project that does not exist has no revision: --if-match refuses it too. With --dry-run it
is checked the same way before the plan is printed. Without --if-match the file is applied
whatever changed since, the last apply winning.

--dry-run validates the file and prints what applying it would do, writing nothing:
it never creates the database; a database that does not exist yet would get everything
created. An update names the fields it changes.

-o json prints what it did (or, with --dry-run, would do) as one document on stdout, in the shape
of the API's answer (POST /api/v1/apply): objects, the created, updated and unchanged counts, and
the notes, which are then in it and not on stderr.

--adopt-state STATE continues schedules handed over from another database (` + "`" + opts.Binary + ` export --all
--with-state -o DIR` + "`" + ` wrote STATE as DIR/` + HandoverStateFile + `): once the file is applied, each of
the project's triggers starts at the source's next occurrence not yet admitted (the first
occurrence of its cron at or after it), so no occurrence runs twice and none is skipped
unrecorded: an occurrence that fell due meanwhile is admitted or passed over by the trigger's
misfire policy, as after any outage; and the project's and triggers' pauses are set with their
notes, who paused them and when (the pause's start is the source's, not this apply's). A trigger whose schedule already
admitted or passed over an occurrence in this database is refused (exit 4,
adopt_over_scheduled): apply with state before any server` + opts.clusterOnly(` or replica`) + ` starts on it. Running the
same command again changes nothing more.` + opts.clusterOnly(`

On the cluster apply needs the admin role's URL, and checks that before it compares
anything: the runtime role's URL exits 5 (publishing definitions needs the admin role's
URL) even for a file that changes nothing. --dry-run only reads, so the runtime role's
URL may run it; it does not check the role may publish.`) + `

--api-url sends the file to a server's API instead (POST /api/v1/apply, with an admin
token in $QL_TOKEN): the server validates and publishes it the same way, records the
token and address in its audit and answers its notes, which are printed here as above.
The API takes at most 1 MiB in one request: a larger file is refused as invalid input
(exit 2); split the project over several files, or apply it on the database.
` + refusal + `
answers so, and says what to run instead.

File format (see examples/sample.yaml):

  project: demo
  tasks:
    - name: hello
      script: echo hello          # shell mode (shell: /bin/sh or /bin/bash)
      # command: ["/bin/date"]    # argv mode instead
      env: {GREETING: hi, TOKEN: {secret: api-token}}
      timeout: 30s` + example + `
  triggers:
    - name: every-10s
      task: hello
      cron: "*/10 * * * * *"
      timezone: UTC
      misfire: fire_once          # or skip`
}

// planApply prints what applying doc would do. An embedded database that
// does not exist is not created: everything in the file would be.
func planApply(cmd *cobra.Command, opts Options, db *dbFlags, doc *apply.Document, ifMatch string, createOnly bool) error {
	path, err := db.resolve(opts)
	if err != nil {
		return err
	}
	printNotes(cmd, doc.Project, apply.Notes(doc, apply.NoteScope{RunsHere: !IsPostgresURL(path), OnWorkers: IsPostgresURL(path), NowMs: time.Now().UnixMilli(), PathMissing: process.PathMissing}))
	var results []apply.Result
	// missing reads the secrets an apply would note as missing; nil where
	// there is nothing to read them from (no database yet).
	var missing func(refs []string) ([]string, error)
	if _, serr := os.Stat(path); !IsPostgresURL(path) && errors.Is(serr, fs.ErrNotExist) {
		// The apply it previews would be refused: a plan against no
		// database would show every object as new, not what the cluster
		// holds.
		if db.defaultLocation() {
			if err := clusterMeant(opts, path); err != nil {
				return err
			}
		}
		if ifMatch != "" {
			return apply.CheckRevision(cmd.Context(), noProjects{}, doc.Project, []string{ifMatch})
		}
		svc := catalog.Service{Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
		results, err = apply.Plan(cmd.Context(), svc, nil, doc, ids.New)
	} else {
		b, oerr := openExisting(cmd.Context(), opts, db)
		if oerr != nil {
			return oerr
		}
		defer b.Close()
		missing = b.MissingSecrets
		if ifMatch != "" && b.Definitions == nil {
			return fmt.Errorf("this build cannot read a project's revision of this database; dry-run without --if-match")
		}
		var stale error
		if ifMatch != "" {
			stale = apply.CheckRevision(cmd.Context(), b.Definitions, doc.Project, []string{ifMatch})
			if stale != nil && qlerror.ReasonOf(stale) != apply.RefusalSpecChanged {
				return stale
			}
		}
		results, err = apply.Plan(cmd.Context(), b.Catalog, b.Catalog.Store, doc, ids.New)
		if serr := apply.StaleUnlessPublished(stale, results, err); serr != nil {
			return serr
		}
		if err == nil {
			err = printUnlisted(cmd, b.Definitions, doc, results)
		}
	}
	if err != nil {
		return err
	}
	if createOnly {
		if err := apply.CheckCreateOnly(doc.Project, results); err != nil {
			return err
		}
	}
	printApplied(cmd, results, apply.Result.Planned)
	if applyJSONOf(cmd) == nil {
		fmt.Fprintf(textWriter{cmd.OutOrStdout()}, "%s: valid (%s, %s); dry run, nothing written\n", doc.File, plural.Count(len(doc.Tasks), "task", "tasks"), plural.Count(len(doc.Triggers), "trigger", "triggers"))
	}
	// The same note, at the same place, as the apply it previews.
	if missing != nil {
		if n, ok := apply.SecretsNote(doc, missing); ok {
			printNotes(cmd, doc.Project, []apply.Note{n})
		}
	}
	return nil
}

// fileErrors prints each error of a definitions file err holds on its own
// line of standard error, as compilers print theirs (FILE:LINE:COLUMN:
// message, which editors jump to), and returns the count for the last
// line, with err's code, reason and params (the first error's); any
// other err is returned as it is.
func fileErrors(cmd *cobra.Command, err error) error {
	var fe *apply.FileErrors
	if !errors.As(err, &fe) {
		return err
	}
	w := textWriter{cmd.ErrOrStderr()}
	for _, line := range fe.Lines() {
		fmt.Fprintln(w, line)
	}
	return withReasonOf(err, qlerror.New(qlerror.CodeOf(err), "%s", fe.Summary()))
}

// withReasonOf is summary with the reason and params of err's first
// error, so that `-o json` says which refusal the count stands for, as
// the API's answer does; summary as it is when err has none.
func withReasonOf(err error, summary *qlerror.Error) *qlerror.Error {
	if r := qlerror.ReasonOf(err); r != "" {
		summary.Reason, summary.Params = r, qlerror.ParamsOf(err)
	}
	return summary
}

// printNotes prints each note about a valid file on its own line of
// standard error, apart from the results a script reads.
func printNotes(cmd *cobra.Command, project string, notes []apply.Note) {
	if g := applyJSONOf(cmd); g != nil {
		g.notes = append(g.notes, notes...)
		return
	}
	for _, n := range notes {
		printNote(cmd, project, n.String())
	}
}

// printUnlisted prints the note of the enabled triggers of doc's project
// that doc does not name, where the database's definitions can be read,
// naming the task each one the results carry along follows.
func printUnlisted(cmd *cobra.Command, r catalog.DefinitionsReader, doc *apply.Document, results []apply.Result) error {
	if r == nil {
		return nil
	}
	n, ok, err := apply.UnlistedNote(cmd.Context(), r, doc, results)
	if ok {
		printNotes(cmd, doc.Project, []apply.Note{n})
	}
	return err
}

// printNote prints one note's sentence as its line of standard error, the
// same bytes for a local note and a server's, but for the commands it
// names (setting a secret, disabling a trigger): printed to paste, as this
// binary with the location flags this apply was given, so each acts where
// the apply looked. A trigger is named within project, the file's: a
// trigger of the same name in another project would make NAME alone
// ambiguous, and the pasted command refused.
func printNote(cmd *cobra.Command, project, sentence string) {
	trigger := "NAME"
	if project != "" {
		trigger = project + "/NAME"
	}
	sentence = strings.NewReplacer(
		apply.SetSecretCommand, "`"+suggest(cmd, "secrets", "set", "NAME")+"`",
		apply.DisableTriggerCommand, "`"+suggest(cmd, "triggers", "disable", trigger)+"`",
	).Replace(sentence)
	fmt.Fprintf(textWriter{cmd.ErrOrStderr()}, "note: %s\n", sentence)
}

// fileFlagOnly refuses a file named without -f, the way most tools take
// one ("ql apply defs.yaml"), with the command to write instead; cobra's
// own refusal calls the file an unknown command.
func fileFlagOnly(cmd *cobra.Command, args []string) error {
	switch len(args) {
	case 0:
		return nil
	case 1:
		return Usagef("apply reads its file from -f: write %s -f %s", cmd.CommandPath(), args[0])
	}
	return Usagef("apply takes one file, given with -f (%d arguments given); to apply several files, run it once per file", len(args))
}

// noProjects is a database that does not exist yet, read for a dry run's
// --if-match: it holds no project, so no revision matches.
type noProjects struct{}

func (noProjects) ProjectDefinitions(_ context.Context, name string, _ int) (catalog.Definitions, error) {
	return catalog.Definitions{}, catalog.ProjectMissing(name)
}
