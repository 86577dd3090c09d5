package cli

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/view"
)

func runsCommand(opts Options) *cobra.Command {
	c := &cobra.Command{Use: "runs", Short: "List and inspect runs"}
	c.AddCommand(runsListCommand(opts), runsShowCommand(opts), runsLogsCommand(opts), runsCancelCommand(opts), runsRerunCommand(opts))
	return c
}

func runsListCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out, project, trigger, state, after, worker, from, to string
	var limit int
	c := &cobra.Command{
		Use:   "list",
		Short: "List runs, the most recently created first",
		Example: "  " + opts.Binary + " runs list --project examples\n" +
			"  " + opts.Binary + " runs list --trigger examples/hello-every-10s --state failed -o json",
		Long: `List runs one page at a time, the most recently created (admitted) first, by id: the order is the
order Runs were made in, not their SCHEDULED FOR time. A Run made late for an earlier occurrence — a
backfill's, a caught-up misfire's, a re-run (which keeps the original's scheduled time) — is listed
among the Runs made when it was, above older Runs scheduled after it. --after ID continues in the same
order, and the API (GET /api/v1/runs) and the console's Runs page list in it too. --from and --to keep the
Runs created in [from, to), as the console's Runs page does: 2026-11-30T08:00 (or with seconds) in
UTC, or a time with its offset as RFC 3339 writes it (2026-11-30T16:00:00+08:00). ORIGIN says what made
each Run (clock, run_now, rerun, backfill; origin in -o json), ERROR how a Run that failed, timed out
or was lost ended, from its last attempt: "exit N" for a command that exited with status N, otherwise
the attempt's error code (e.g. timed_out, killed_by_signal, server_stopped; errorCode and exitCode in
-o json, as in ` + "`runs show`" + `, which gives every attempt's), and RAN how long a finished Run's attempts ran,
added up, each from its start to its end: no queue, no wait between retries (ranMs in -o json, in
milliseconds; "-" and absent before the Run finishes).` + opts.clusterOnly(` A Run lost because its worker
stopped renewing shows RAN as "≥ 9ms": it counts until the worker was last heard from, and the command
may have run longer (ranMsIsLowerBound in -o json). On the cluster a WORKER column names
the worker that holds or held each Run's latest attempt (worker in -o json; the column is left out
when no listed Run has one, as on the standalone and edge profiles), and --worker NAME lists only
the Runs any attempt of which that worker held, its latest or an earlier one that was retried.`),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			if limit < 1 || limit > run.MaxPageSize {
				return Usagef("--limit %d is outside 1–%d", limit, run.MaxPageSize)
			}
			if err := checkStateFlag(state); err != nil {
				return err
			}
			fromMs, err := run.WindowBound("--from", from)
			if err != nil {
				return &UsageError{Err: err}
			}
			toMs, err := run.WindowBound("--to", to)
			if err != nil {
				return &UsageError{Err: err}
			}
			if toMs != 0 && fromMs >= toMs {
				return Usagef("--from %s is not before --to %s; give the earlier time as --from", from, to)
			}
			b, err := openExisting(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			var projectID, triggerID string
			if trigger == "" {
				projectID, err = listedProject(cmd.Context(), b, project)
			} else {
				projectID, triggerID, err = resolveFilters(cmd.Context(), b.Triggers, project, trigger)
			}
			if err != nil {
				return err
			}
			runs, next, err := b.Runs.RunList(cmd.Context(), run.ListParams{ProjectID: projectID, TriggerID: triggerID, State: run.State(state), Limit: limit, After: after, Worker: worker, FromMs: fromMs, ToMs: toMs})
			if err != nil {
				return err
			}
			unserved := ""
			if out != "json" {
				unserved = unservedList(cmd, b, runs)
			}
			header := []string{"ID", "STATE", "RAN", "SCHEDULED FOR", "PROJECT", "TRIGGER", "TASK REV", "ORIGIN", "ERROR"}
			withWorker := worker != "" || slices.ContainsFunc(runs, func(r run.Run) bool { return r.WorkerName != "" })
			if withWorker {
				header = append(header, "WORKER")
			}
			err = printListing(cmd, out, listing[run.Run]{
				json:   view.NewRunList(runs, next),
				header: header,
				items:  runs,
				row: func(r run.Run) []string {
					row := []string{r.ID, string(r.State), ranColumn(r), fmtMs(&r.ScheduledForMs),
						nameOr(r.ProjectName, r.ProjectID), nameOr(r.TriggerName, r.TriggerID), fmt.Sprint(r.TaskRevision),
						nameOr(string(r.Origin), "-"), runError(r)}
					if withWorker {
						row = append(row, nameOr(oneLine(r.WorkerName), "-"))
					}
					return row
				},
				next: next,
				none: NoneLine("run", project != "" || trigger != "" || state != "" || after != "" || worker != "" || from != "" || to != "",
					"the schedule makes one as each occurrence falls due, and `"+suggest(cmd, "triggers", "run", "NAME")+"` makes one now"),
			})
			if err == nil && unserved != "" {
				fmt.Fprintln(textWriter{cmd.ErrOrStderr()}, oneLine(unserved))
			}
			return err
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	addOutputFlag(c, &out)
	c.Flags().StringVar(&project, "project", "", "only runs of this project (name or id)")
	c.Flags().StringVar(&trigger, "trigger", "", "only runs of this trigger (id, name, or project/name)")
	c.Flags().StringVar(&state, "state", "", "only runs in this state: "+stateNames())
	c.Flags().IntVar(&limit, "limit", run.DefaultPageSize, "page size (1–500)")
	c.Flags().StringVar(&after, "after", "", "continue after this run id (printed as 'more:')")
	c.Flags().StringVar(&from, "from", "", "only runs created (admitted) at or after this time: 2026-11-30T08:00 in UTC, or with its offset as RFC 3339 writes it (2026-11-30T16:00:00+08:00)")
	c.Flags().StringVar(&to, "to", "", "only runs created (admitted) before this time, in --from's forms")
	if opts.OpenPostgres != nil {
		c.Flags().StringVar(&worker, "worker", "", "only runs any attempt of which this cluster worker held (its name)")
	}
	return c
}

// runError is how a listed Run ended, for its ERROR column: "exit N" when
// its last attempt's command exited with status N, that attempt's error
// code otherwise (timed_out, killed_by_signal, server_stopped, …), "-"
// for a Run that did not fail, time out or get lost.
func runError(r run.Run) string {
	if r.ExitCode != nil && *r.ExitCode != 0 {
		return fmt.Sprintf("exit %d", *r.ExitCode)
	}
	return nameOr(r.ErrorCode, "-")
}

// ranText is how long a finished Run's attempts ran, added up (RanMs),
// as a person reads it: milliseconds under a second (9ms), tenths of a
// second under a minute (2.5s), whole seconds above (1m51s); "-" before
// it finishes.
func ranText(ms *int64) string {
	if ms == nil {
		return "-"
	}
	d := time.Duration(*ms) * time.Millisecond
	switch {
	case d < time.Second:
		return d.String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// ranColumn is ranText of r's RanMs, after "≥ " when that is a lower
// bound (run.Run.RanUntilLastHeard): a lost Run's command may have run on
// after its worker was last heard from.
func ranColumn(r run.Run) string {
	if r.RanUntilLastHeard && r.RanMs != nil {
		return "≥ " + ranText(r.RanMs)
	}
	return ranText(r.RanMs)
}

// nameOr is name, or fallback when the reader had none.
func nameOr(name, fallback string) string {
	if name == "" {
		return fallback
	}
	return name
}

// stateNames lists the run states a Run can be in, as --state takes them.
func stateNames() string {
	names := make([]string, len(run.Reachable))
	for i, s := range run.Reachable {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// checkStateFlag refuses a --state no Run of this release can be in, as
// the store, the API and the console do (run.ListParams.CheckState):
// waiting_approval, kept for approvals nothing enters yet, included.
func checkStateFlag(state string) error {
	switch {
	case state == "" || slices.Contains(run.Reachable, run.State(state)):
		return nil
	case slices.Contains(run.States, run.State(state)):
		return &UsageError{Err: qlerror.New(qlerror.Invalid, "--state %s: no Run of this release is ever in it (the state is kept for approvals, which nothing enters yet); use one of %s", state, stateNames()).
			Because(run.RefusalListState, "state", state)}
	}
	return &UsageError{Err: qlerror.New(qlerror.Invalid, "--state %q is not a run state; use one of %s", state, stateNames()).
		Because(run.RefusalListState, "state", state)}
}

func runsShowCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out string
	c := &cobra.Command{
		Use:     "show RUN_ID",
		Short:   "Show a run with its attempts and events",
		Example: "  " + opts.Binary + " runs show 0190a4f2-0000-7000-8000-000000000000 -o json",
		Long: "Show a run with its attempts and events: its project, the trigger that admitted it (named as it was at that revision) and the task it ran\n" +
			"(named as it was at the revision that ran), each with its id; -o json gives them as projectName, triggerName and taskName.\n" +
			"A finished run says on a ran line how long its attempts ran, added up, each from its start to its end: no queue, no\n" +
			"wait between retries (ranMs in -o json, in milliseconds).\n" +
			`A queued run of the standalone or edge profile that other Runs hold says why on a waiting line (in
-o json, a waiting object with a reason code): its trigger's overlap policy holds it behind an earlier
run (waits_for_previous); its project runs as many of its Runs as its maxRunning allows
(project_busy); it waits its turn, N of N commands running, as many as the server's
--concurrency allows (server_busy); the server starts it in a moment, K of N running (server_starting);
its project is archived, so nothing starts it until the project is active again (project_archived);
or, read with --data-dir, no server serves the data directory (no_server). Read with --data-dir, the
server's --concurrency comes from the record it keeps in its lock file. A dispatching or running run
read with --data-dir when no server serves it (its server was killed) says so on a server line (in
-o json, a noServer object): the next serve recovers its attempt, ended lost.` +
			opts.clusterOnly(` On the cluster, a queued run that no live worker can take
now says why on a waiting line (in -o json, a waiting object with a reason code): no worker is
connected, every worker is draining, no live worker carries all the labels of its task's placement,
its project runs as many of its Runs as its maxRunning allows, every matching worker is busy, its
trigger's overlap policy holds it behind an earlier run, or its project is archived
(project_archived). A run
that no live worker could take for want of a worker (none connected, all draining, or none with its
labels) also has, from a replica's sweep, one run.waiting event recording the reason and the labels
it needs.`),
		Args: oneID("runs show takes one run id", "run id", "runs", "list"),
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
			unserved, unservedDir := "", ""
			if holdsSlot(d.Run.State) {
				if unservedDir = unservedDataDir(cmd, b, d.Run.ID); unservedDir != "" {
					unserved = unservedRun(cmd, unservedDir)
				}
			}
			w := cmd.OutOrStdout()
			if out == "json" {
				v := view.NewRunDetail(d)
				if v.Waiting != nil {
					v.Waiting.Message = asSuggested(cmd, v.Waiting.Message)
				}
				if unserved != "" {
					v.NoServer = &view.NoServer{DataDir: unservedDir, Message: unserved}
				}
				return writeJSON(w, v)
			}
			w = textWriter{w}
			r := d.Run
			fmt.Fprintf(w, "run        %s\nstate      %s (version %d)\nscheduled  %s\nproject    %s (%s)\n",
				r.ID, r.State, r.Version, fmtMs(&r.ScheduledForMs), nameOr(r.ProjectName, "-"), r.ProjectID)
			if r.TriggerID != "" {
				fmt.Fprintf(w, "trigger    %s (%s) revision %d\n", nameOr(r.TriggerName, "-"), r.TriggerID, r.TriggerRevision)
			}
			fmt.Fprintf(w, "task       %s (%s) revision %d\nkey        %s\n", nameOr(r.TaskName, "-"), r.TaskID, r.TaskRevision, oneLine(r.IdempotencyKey))
			if r.Origin != "" {
				fmt.Fprintf(w, "origin     %s\n", r.Origin)
			}
			if r.RerunOf != "" {
				fmt.Fprintf(w, "re-run of  %s\n", r.RerunOf)
			}
			if len(d.RerunAs) > 0 {
				fmt.Fprintf(w, "re-run as  %s\n", strings.Join(d.RerunAs, ", "))
			}
			if note := dueNote(r); note != "" {
				fmt.Fprintf(w, "due        %s (%s)\n", fmtMs(&r.DueAtMs), note)
			}
			switch {
			case r.RanUntilLastHeard && r.RanMs != nil:
				fmt.Fprintf(w, "ran        %s (until its worker was last heard from: the Run was lost, its command may have run longer)\n", ranColumn(r))
			case r.RanMs != nil:
				fmt.Fprintf(w, "ran        %s (its attempts' run times added up: no queue, no wait between retries)\n", ranColumn(r))
			}
			if d.Waiting != nil {
				fmt.Fprintf(w, "waiting    %s\n", oneLine(asSuggested(cmd, d.Waiting.Message())))
			}
			if unserved != "" {
				fmt.Fprintf(w, "server     %s\n", oneLine(unserved))
			}
			tw := NewTable(w)
			fmt.Fprintln(tw, "\nATTEMPT\tSTATE\tEXECUTOR\tWORKER\tEXIT\tSTARTED\tFINISHED\tERROR")
			for _, a := range d.Attempts {
				exit := "-"
				if a.ExitCode != nil {
					exit = fmt.Sprint(*a.ExitCode)
				}
				fmt.Fprintf(tw, "%d %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.Number, a.ID, attemptStateShown(r.State, a.State), a.Executor, nameOr(oneLine(a.WorkerName), "-"), exit,
					fmtMs(a.StartedAtMs), fmtMs(a.FinishedAtMs), attemptError(a))
			}
			fmt.Fprintln(tw, "\nSEQ\tEVENT\tAT\tPAYLOAD")
			for _, e := range d.Events {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", e.Seq, e.Name, fmtMs(&e.CreatedAtMs), e.Payload)
			}
			return tw.Flush()
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	addOutputFlag(c, &out)
	return c
}

// dueNote says why a Run's due time is not its scheduled time, "" when it
// is (or was not recorded). The clock and a backfill make an occurrence due
// its trigger's jitter after it; a person's request is due when it was
// made, and a re-run keeps the original's scheduled time, so the gap
// between them is the time since the original's occurrence, not jitter.
// A Run read from a server that does not send its origin is known for a
// re-run by the Run it repeats.
func dueNote(r run.Run) string {
	if r.DueAtMs == 0 || r.DueAtMs == r.ScheduledForMs {
		return ""
	}
	switch {
	case r.Origin == run.OriginRerun || r.RerunOf != "":
		return "when the re-run was requested; scheduled is the original's"
	case r.Origin == run.OriginRunNow:
		return "when it was requested"
	}
	return "jitter " + (time.Duration(r.DueAtMs-r.ScheduledForMs) * time.Millisecond).String()
}

// attemptStateShown is how the attempts table states attempt state a of a
// Run in state rs: a claimed attempt in the words the API's stateText and
// the console give it, since the stored "claimed" reads as taken while it
// waits to start; the other states as stored, which already say what they
// mean and are what scripts and the docs name.
func attemptStateShown(rs run.State, a run.AttemptState) string {
	if a == run.AttemptClaimed {
		return run.AttemptStateText(rs, a)
	}
	return string(a)
}

// attemptError is an attempt's error code and message on one line, "-"
// when it has neither.
func attemptError(a run.Attempt) string {
	switch {
	case a.ErrorCode != "" && a.ErrorMessage != "":
		return oneLine(a.ErrorCode + ": " + a.ErrorMessage)
	case a.ErrorCode != "" || a.ErrorMessage != "":
		return oneLine(a.ErrorCode + a.ErrorMessage)
	}
	return "-"
}

// runsCancelLong is runs cancel's help: how a running command hears of
// its cancellation differs between the cluster's workers and the
// single-node executor.
func runsCancelLong(opts Options) string {
	if opts.OpenPostgres == nil {
		return `Cancel a run. A run that has not started (queued) is cancelled at once. A running run's command is
stopped by the serving process's executor, which finds the cancellation at its next poll (about a
second): SIGTERM, then SIGKILL after the task's killGrace. A lost run (nothing runs it any more) is
closed cancelled. A run that has already ended is left as it is.` + runsCancelAudit + apiHelp("runs cancel")
	}
	return `Cancel a run. A run that has not started (queued, waiting to retry, or granted to a worker that has
not started it) is cancelled at once. On the cluster a running run's worker is told within moments
(its waiting pull or watch is woken), renews its lease, hears the cancellation, stops the command
(SIGTERM, then SIGKILL after the task's killGrace) and reports the run cancelled; a worker that cannot
be told at once hears it at its next lease renewal (a third of the run lease). A worker that is gone (crashed,
cut off) never hears it: the run ends cancelled, not retried, when its lease runs out (the run lease, 30s by
default; its attempt is recorded lost). On standalone and edge the serving process's executor finds the cancellation
at its next poll (about a second) and stops the command the same way. A lost run (nothing runs it any
more) is closed cancelled. A run that has already ended is left as it is.` + runsCancelAudit + apiHelp("runs cancel")
}

// runsCancelAudit is the sentence of runs cancel's help on who is recorded.
const runsCancelAudit = `
The cancel's event records who asked: the operating-system user, or over --api-url the API token and
the address it came from.

With --state instead of a run id it cancels every Run in that state (queued, running or lost),
narrowed by --project or --trigger: a backlog a backfill or a slow job left queued, say. It reads the
matching ids first and then cancels each as the command above does (so Runs admitted meanwhile are
left), prints progress on stderr every 100 Runs and a count at the end; --dry-run counts them and
cancels none. It stops at the first Run it cannot cancel, saying how many it had done.
`

func runsCancelCommand(opts Options) *cobra.Command {
	var db dbFlags
	var f cancelFilters
	var out string
	c := &cobra.Command{
		Use:   "cancel RUN_ID | --state STATE [--project P | --trigger T]",
		Short: "Cancel a run: at once when it has not started, else its command is stopped",
		Long:  runsCancelLong(opts),
		Example: "  " + opts.Binary + " runs cancel 0190a4f2-0000-7000-8000-000000000000\n" +
			"  " + opts.Binary + " runs cancel 0190a4f2-0000-7000-8000-000000000000 --api-url https://ql.example.com:8080\n" +
			"  " + opts.Binary + " runs cancel --state queued --trigger shop/nightly --dry-run\n" +
			"  " + opts.Binary + " runs cancel --state queued --trigger shop/nightly",
		Args: cancelArgs(&f),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			if out == "json" && len(args) == 0 {
				return Usagef("-o json prints the cancel of one run (the API's answer); with --state the command prints its counts as text")
			}
			b, err := openExistingWritable(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.CancelRun == nil {
				return fmt.Errorf("this build cannot cancel runs of this database")
			}
			if len(args) == 0 {
				return cancelMatching(cmd.Context(), cmd, b, f)
			}
			// Only the effect says this call ended the Run: one that its
			// command or an earlier cancel ended, even a moment before,
			// is reported as already ended.
			r, eff, err := b.CancelRun(cmd.Context(), args[0], actor())
			if err != nil {
				return err
			}
			if out == "json" {
				return writeJSON(cmd.OutOrStdout(), view.NewRunCancel(r, eff))
			}
			switch {
			case eff.Finished:
				fmt.Fprintf(cmd.OutOrStdout(), "run %s: %s\n", r.ID, r.State)
				return nil
			case eff.ClosedLost:
				fmt.Fprintf(cmd.OutOrStdout(), "run %s: %s (it was lost: nothing was running it)\n", r.ID, r.State)
				return nil
			case r.State.Terminal():
				fmt.Fprintf(cmd.OutOrStdout(), "run %s: already %s; nothing to cancel\n", r.ID, r.State)
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "run %s: cancellation requested; it is %s until the command is stopped (follow with `%s`)\n", r.ID, r.State, suggest(cmd, "runs", "logs", "-f", r.ID))
			return nil
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	c.Flags().StringVar(&f.state, "state", "", "cancel every Run in this state (queued, running or lost) instead of one by id")
	c.Flags().StringVar(&f.project, "project", "", "with --state: only Runs of this project (name or id)")
	c.Flags().StringVar(&f.trigger, "trigger", "", "with --state: only Runs of this trigger (id, name, or project/name)")
	c.Flags().BoolVar(&f.dryRun, "dry-run", false, "with --state: count the Runs it would cancel, cancelling none")
	addOutputFlag(c, &out)
	return c
}
