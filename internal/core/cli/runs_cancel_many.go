package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/run"
)

// cancelFilters are runs cancel's filters: with them it cancels every Run
// they match instead of one by id.
type cancelFilters struct {
	project, trigger, state string
	dryRun                  bool
}

func (f cancelFilters) given() bool { return f.project != "" || f.trigger != "" || f.state != "" }

// cancelArgs takes one run id, or none with --state (and optionally
// --project or --trigger), never both.
func cancelArgs(f *cancelFilters) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		printed := "as printed by `" + suggest(cmd, "runs", "list") + "`"
		switch {
		case len(args) > 1:
			return Usagef("runs cancel takes one run id, %s, or --state with --project or --trigger to cancel every Run they match", printed)
		case len(args) == 1 && f.given():
			return Usagef("give a run id or --state/--project/--trigger, not both: the id alone cancels that Run, the flags every Run they match")
		case len(args) == 1 && f.dryRun:
			return Usagef("--dry-run goes with --state: it counts the Runs the flags match")
		case len(args) == 1:
			return notAnID("run id", args[0], printed)
		case f.state == "":
			return Usagef("runs cancel takes one run id, %s, or --state (queued, running or lost) to cancel every Run in it, narrowed by --project or --trigger", printed)
		}
		if err := checkStateFlag(f.state); err != nil {
			return err
		}
		if run.State(f.state).Terminal() {
			return Usagef("--state %s: a Run in it has already ended, so there is nothing to cancel; use queued, running or lost", f.state)
		}
		return nil
	}
}

// cancelMatching cancels every Run the filters match, as one runs cancel
// each: the matching ids are read first, page by page, so Runs the
// cancels move out of the state do not shift the pages still to read, and
// Runs admitted meanwhile are left for another call.
func cancelMatching(ctx context.Context, cmd *cobra.Command, b *Backend, f cancelFilters) error {
	var projectID, triggerID string
	var err error
	if f.trigger == "" {
		projectID, err = listedProject(ctx, b, f.project)
	} else {
		projectID, triggerID, err = resolveFilters(ctx, b.Triggers, f.project, f.trigger)
	}
	if err != nil {
		return err
	}
	var matched []string
	for after := ""; ; {
		page, next, err := b.Runs.RunList(ctx, run.ListParams{ProjectID: projectID, TriggerID: triggerID, State: run.State(f.state), Limit: run.MaxPageSize, After: after})
		if err != nil {
			return err
		}
		for _, r := range page {
			matched = append(matched, r.ID)
		}
		if next == "" {
			break
		}
		after = next
	}
	w := cmd.OutOrStdout()
	if f.dryRun {
		fmt.Fprintf(w, "would cancel %s (nothing was cancelled)\n", plural.Count(len(matched), f.state+" run", f.state+" runs"))
		return nil
	}
	progress := textWriter{cmd.ErrOrStderr()}
	var ended, requested, already int
	for i, id := range matched {
		r, eff, err := b.CancelRun(ctx, id, actor())
		if err != nil {
			return fmt.Errorf("after %d of %d runs: run %s: %w", i, len(matched), id, err)
		}
		switch {
		case eff.Finished || eff.ClosedLost:
			ended++
		case r.State.Terminal():
			already++
		default:
			requested++
		}
		if (i+1)%100 == 0 && i+1 < len(matched) {
			fmt.Fprintf(progress, "%d of %d runs done\n", i+1, len(matched))
		}
	}
	summarizeCancels(w, len(matched), f.state, ended, requested, already)
	return nil
}

func summarizeCancels(w io.Writer, matched int, state string, ended, requested, already int) {
	fmt.Fprintf(w, "%s matched: %d cancelled", plural.Count(matched, state+" run", state+" runs"), ended)
	if requested > 0 {
		fmt.Fprintf(w, ", %d asked to stop (their commands are stopped, then they end cancelled)", requested)
	}
	if already > 0 {
		fmt.Fprintf(w, ", %d had already ended", already)
	}
	fmt.Fprintln(w)
}
