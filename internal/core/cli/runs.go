package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/view"
)

func runsCommand(opts Options) *cobra.Command {
	c := &cobra.Command{Use: "runs", Short: "List and inspect runs"}
	c.AddCommand(runsListCommand(opts), runsShowCommand(opts), runsLogsCommand(opts))
	return c
}

func runsListCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out, project, trigger, state, after string
	var limit int
	c := &cobra.Command{
		Use:   "list",
		Short: "List runs, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			if limit < 1 || limit > run.MaxPageSize {
				return Usagef("--limit %d is outside 1–%d", limit, run.MaxPageSize)
			}
			if state != "" && !knownState(run.State(state)) {
				return Usagef("--state %q is not a run state (%v)", state, run.States)
			}
			b, err := openExisting(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			projectID, triggerID, err := resolveFilters(cmd.Context(), b.Triggers, project, trigger)
			if err != nil {
				return err
			}
			runs, next, err := b.Runs.RunList(cmd.Context(), run.ListParams{ProjectID: projectID, TriggerID: triggerID, State: run.State(state), Limit: limit, After: after})
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if out == "json" {
				return writeJSON(w, view.NewRunList(runs, next))
			}
			tw := newTable(w)
			fmt.Fprintln(tw, "ID\tSTATE\tSCHEDULED FOR\tPROJECT\tTRIGGER\tTASK REV")
			for _, r := range runs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\n", r.ID, r.State, fmtMs(&r.ScheduledForMs),
					nameOr(r.ProjectName, r.ProjectID), nameOr(r.TriggerName, r.TriggerID), r.TaskRevision)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if next != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "more: --after %s\n", next)
			}
			return nil
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addOutputFlag(c, &out)
	c.Flags().StringVar(&project, "project", "", "only runs of this project (name or id)")
	c.Flags().StringVar(&trigger, "trigger", "", "only runs of this trigger (id, name, or project/name)")
	c.Flags().StringVar(&state, "state", "", "only runs in this state")
	c.Flags().IntVar(&limit, "limit", run.DefaultPageSize, "page size (1–500)")
	c.Flags().StringVar(&after, "after", "", "continue after this run id (printed as 'more:')")
	return c
}

// nameOr is name, or fallback when the reader had none.
func nameOr(name, fallback string) string {
	if name == "" {
		return fallback
	}
	return name
}

func knownState(s run.State) bool {
	for _, x := range run.States {
		if x == s {
			return true
		}
	}
	return false
}

func runsShowCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out string
	c := &cobra.Command{
		Use:   "show RUN_ID",
		Short: "Show a run with its attempts and events",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return Usagef("runs show takes one run id")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			b, err := openExisting(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			d, err := b.Runs.RunGet(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if out == "json" {
				return writeJSON(w, view.NewRunDetail(d))
			}
			r := d.Run
			fmt.Fprintf(w, "run        %s\nstate      %s (version %d)\nscheduled  %s\nproject    %s (%s)\ntrigger    %s (%s) revision %d\ntask       %s revision %d\nkey        %s\n",
				r.ID, r.State, r.Version, fmtMs(&r.ScheduledForMs), nameOr(r.ProjectName, "-"), r.ProjectID,
				nameOr(r.TriggerName, "-"), r.TriggerID, r.TriggerRevision, r.TaskID, r.TaskRevision, r.IdempotencyKey)
			tw := newTable(w)
			fmt.Fprintln(tw, "\nATTEMPT\tSTATE\tEXECUTOR\tEXIT\tSTARTED\tFINISHED")
			for _, a := range d.Attempts {
				exit := "-"
				if a.ExitCode != nil {
					exit = fmt.Sprint(*a.ExitCode)
				}
				fmt.Fprintf(tw, "%d %s\t%s\t%s\t%s\t%s\t%s\n", a.Number, a.ID, a.State, a.Executor, exit, fmtMs(a.StartedAtMs), fmtMs(a.FinishedAtMs))
			}
			fmt.Fprintln(tw, "\nSEQ\tEVENT\tAT\tPAYLOAD")
			for _, e := range d.Events {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", e.Seq, e.Name, fmtMs(&e.CreatedAtMs), e.Payload)
			}
			return tw.Flush()
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addOutputFlag(c, &out)
	return c
}

func runsLogsCommand(opts Options) *cobra.Command {
	var db dbFlags
	c := &cobra.Command{
		Use:   "logs RUN_ID",
		Short: "Print the captured output of a run's latest attempt (single-node profiles)",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return Usagef("runs logs takes one run id")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := openExisting(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.ReadLog == nil {
				return fmt.Errorf("this database keeps no local logs (cluster runs are executed by remote workers)")
			}
			d, err := b.Runs.RunGet(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if len(d.Attempts) == 0 {
				return fmt.Errorf("run %s has no attempt yet", args[0])
			}
			last := d.Attempts[len(d.Attempts)-1]
			if err := copyLog(cmd.Context(), b, last.ID, cmd.OutOrStdout()); err != nil {
				return err
			}
			if last.LogTruncated {
				fmt.Fprintf(cmd.ErrOrStderr(), "(output was truncated at the log size cap)\n")
			}
			return nil
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	return c
}

// copyLog writes an attempt's output to out: byte for byte into a file or
// pipe, with control characters made visible on a terminal, so a task's
// output cannot drive the operator's terminal.
func copyLog(ctx context.Context, b *Backend, attemptID string, out io.Writer) error {
	if !isTerminal(out) {
		return b.ReadLog(ctx, attemptID, out)
	}
	e := &escaper{w: out}
	if err := b.ReadLog(ctx, attemptID, e); err != nil {
		return err
	}
	return e.Flush()
}
