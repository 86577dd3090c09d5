package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// maxExportedProjects bounds `export --all`: more projects than a
// database is ever given.
const maxExportedProjects = 100_000

// exportAll writes every project of the database to dir/PROJECT.yaml and,
// withState, hands the database over: the server's lock held while its
// positions are read (opts.HandOver), the mark written first, and the
// positions and pauses written to dir/HandoverStateFile.
func exportAll(cmd *cobra.Command, opts Options, db *dbFlags, dir string, withState, force bool) (err error) {
	if db.server != "" {
		return Usagef("--all reads the database itself; run it where the database is, without --api-url")
	}
	if dir == "" || dir == "-" {
		return Usagef("--all writes one file per project: give -o DIR")
	}
	if !force {
		if err := refuseExportDirInUse(cmd, dir, withState); err != nil {
			return err
		}
	}
	ctx := cmd.Context()
	state := handoverState{Format: HandoverFormat, Projects: []projectState{}}
	if withState {
		release, err := handOver(cmd, opts, db)
		if err != nil {
			return err
		}
		defer func() {
			if rerr := release(); err == nil {
				err = rerr
			}
			if err != nil {
				fmt.Fprintf(textWriter{cmd.ErrOrStderr()}, "note: the database is marked handed over already; run this export again, or take it back with `%s`\n", suggest(cmd, "serve", "--take-back"))
			}
		}()
		state.HandedOverAtMs = time.Now().UnixMilli()
	}
	b, err := openExisting(ctx, opts, db)
	if err != nil {
		return err
	}
	defer b.Close()
	if b.Definitions == nil {
		return fmt.Errorf("this build cannot export definitions of this database")
	}
	names, err := b.Definitions.ProjectNames(ctx, "", maxExportedProjects, nil)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return qlerror.Wrap(qlerror.Invalid, err, "cannot make the directory %s", dir)
	}
	var tasks, triggers int
	for _, n := range names {
		ex, err := apply.ExportProject(ctx, b.Definitions, n.Name, nil)
		if err != nil {
			return err
		}
		for _, note := range ex.Notes {
			printNote(cmd, n.Name, n.Name+": "+note.Message)
		}
		path := filepath.Join(dir, n.Name+".yaml")
		if err := os.WriteFile(path, ex.YAML, 0o600); err != nil {
			return qlerror.Wrap(qlerror.Invalid, err, "cannot write the definitions file %s", path)
		}
		tasks, triggers = tasks+ex.Tasks, triggers+ex.Triggers
		if !withState {
			if err := printPausedNotes(ctx, cmd, b, n.Name); err != nil {
				return err
			}
			continue
		}
		ps, err := readState(ctx, b, n.Name)
		if err != nil {
			return err
		}
		state.Projects = append(state.Projects, ps)
	}
	w := textWriter{cmd.ErrOrStderr()}
	fmt.Fprintf(w, "wrote %s (%s, %s) to %s\n", plural.Count(len(names), "project", "projects"),
		plural.Count(tasks, "task", "tasks"), plural.Count(triggers, "trigger", "triggers"), dir)
	if !withState {
		return nil
	}
	statePath := filepath.Join(dir, HandoverStateFile)
	if err := writeState(statePath, state); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote the schedule positions and pauses to %s; this database is handed over: `%s` on it is refused from now on, until `%s`\n",
		statePath, suggest(cmd, "serve"), suggest(cmd, "serve", "--take-back"))
	return nil
}

// handOver checks that db names an embedded database and hands it over
// (opts.HandOver), returning the release of the server's lock.
func handOver(cmd *cobra.Command, opts Options, db *dbFlags) (func() error, error) {
	dsn, err := db.resolve(opts)
	if err != nil {
		return nil, err
	}
	if IsPostgresURL(dsn) || opts.HandOver == nil {
		return nil, Usagef("--with-state hands over an embedded database (--data-dir); the cluster's schedule positions are not exported: " +
			"to move back to standalone, see docs/operations.md, \"Moving from standalone to the cluster (and back)\"")
	}
	if err := mustExist(cmd, dsn); err != nil {
		return nil, err
	}
	return opts.HandOver(cmd.Context(), dsn, actor())
}

// notePaused prints, for `export PROJECT`, the pauses the file cannot
// carry, read from the database or, given --api-url, from the server, in
// the same words.
func notePaused(cmd *cobra.Command, opts Options, db *dbFlags, name string) error {
	b, err := openExisting(cmd.Context(), opts, db)
	if err != nil {
		return err
	}
	defer b.Close()
	return printPausedNotes(cmd.Context(), cmd, b, name)
}

// printPausedNotes notes the project's pause and its triggers' own
// pauses: schedule state a definitions file does not carry, so the
// project applied elsewhere runs unpaused.
func printPausedNotes(ctx context.Context, cmd *cobra.Command, b *Backend, name string) error {
	if b.ProjectPauses == nil || b.Triggers == nil {
		return nil
	}
	pp, err := b.ProjectPauses.ProjectPauseRead(ctx, name)
	if err != nil {
		return err
	}
	if pp.Paused {
		printNote(cmd, name, fmt.Sprintf("project %s is paused (since %s, by %s): a pause is not in the definitions file, so the project applied elsewhere runs unpaused; "+
			"pause it there once applied, or, from an embedded database, move it with `%s`", name, time.UnixMilli(pp.AtMs).UTC().Format(time.RFC3339), pp.Actor, suggestOnTheDatabase(cmd, "export", "--all", "--with-state", "-o", "DIR")))
	}
	var own []string
	after := ""
	for {
		page, next, err := b.Triggers.TriggerList(ctx, schedule.TriggerListParams{ProjectID: pp.ProjectID, Limit: run.MaxPageSize, After: after})
		if err != nil {
			return err
		}
		for _, t := range page {
			if t.Paused && !t.PausedWithProject {
				own = append(own, t.Name)
			}
		}
		if next == "" {
			break
		}
		after = next
	}
	if len(own) > 0 {
		printNote(cmd, name, fmt.Sprintf("paused on their own in project %s: %s (%s); a pause is not in the definitions file, so applied elsewhere they run unpaused",
			name, plural.Count(len(own), "trigger", "triggers"), strings.Join(own, ", ")))
	}
	return nil
}

// RefusalExportDirNotEmpty is an `export --all` refused because DIR holds
// files an earlier export (a handover's state file above all) left there.
const RefusalExportDirNotEmpty qlerror.Reason = "export_dir_not_empty"

// refuseExportDirInUse refuses, before anything is marked or written, a
// DIR holding a state file, and with withState a DIR holding any file:
// the export would overwrite an earlier handover's definitions and state,
// which may be the only record of where its schedules stood.
func refuseExportDirInUse(cmd *cobra.Command, dir string, withState bool) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return qlerror.Wrap(qlerror.Invalid, err, "cannot read the directory %s", dir)
	}
	holdsState := slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == HandoverStateFile })
	if !holdsState && (!withState || len(entries) == 0) {
		return nil
	}
	words := []string{"export", "--all", "-o", dir, "--force"}
	if withState {
		words = []string{"export", "--all", "--with-state", "-o", dir, "--force"}
	}
	what := "files"
	if holdsState {
		what = "the state file " + HandoverStateFile + " of an earlier handover"
	}
	return qlerror.New(qlerror.FailedPrecondition,
		"%s holds %s, which this export would overwrite; nothing was exported or marked: give -o a new or empty directory, "+
			"or, if that earlier export is no longer needed (its state was applied, or never will be), add --force: `%s`", dir, what, suggest(cmd, words...)).
		Because(RefusalExportDirNotEmpty, "dir", dir)
}
