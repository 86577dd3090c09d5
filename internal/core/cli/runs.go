package cli

import (
	"context"
	"fmt"
	"io"
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
				return Usagef("--state %q is not a run state; use one of %s", state, stateNames())
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
			return printListing(cmd, out, listing[run.Run]{
				json:   view.NewRunList(runs, next),
				header: []string{"ID", "STATE", "SCHEDULED FOR", "PROJECT", "TRIGGER", "TASK REV"},
				items:  runs,
				row: func(r run.Run) []string {
					return []string{r.ID, string(r.State), fmtMs(&r.ScheduledForMs),
						nameOr(r.ProjectName, r.ProjectID), nameOr(r.TriggerName, r.TriggerID), fmt.Sprint(r.TaskRevision)}
				},
				next: next,
			})
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
	return c
}

// nameOr is name, or fallback when the reader had none.
func nameOr(name, fallback string) string {
	if name == "" {
		return fallback
	}
	return name
}

// stateNames lists the run states, as --state takes them.
func stateNames() string {
	names := make([]string, len(run.States))
	for i, s := range run.States {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
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
		Long: "Show a run with its attempts and events." + opts.clusterOnly(` On the cluster, a queued run that no live worker can take
now says why on a waiting line (in -o json, a waiting object with a reason code): no worker is
connected, every worker is draining, no live worker carries all the labels of its task's placement,
every matching worker is busy, or its trigger's overlap policy holds it behind an earlier run.`),
		Args: oneID("runs show takes one run id", "run id", "ql runs list"),
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
			w = textWriter{w}
			r := d.Run
			fmt.Fprintf(w, "run        %s\nstate      %s (version %d)\nscheduled  %s\nproject    %s (%s)\ntrigger    %s (%s) revision %d\ntask       %s revision %d\nkey        %s\n",
				r.ID, r.State, r.Version, fmtMs(&r.ScheduledForMs), nameOr(r.ProjectName, "-"), r.ProjectID,
				nameOr(r.TriggerName, "-"), r.TriggerID, r.TriggerRevision, r.TaskID, r.TaskRevision, oneLine(r.IdempotencyKey))
			if r.RerunOf != "" {
				fmt.Fprintf(w, "re-run of  %s\n", r.RerunOf)
			}
			if r.DueAtMs != 0 && r.DueAtMs != r.ScheduledForMs {
				fmt.Fprintf(w, "due        %s (jitter %s)\n", fmtMs(&r.DueAtMs), time.Duration(r.DueAtMs-r.ScheduledForMs)*time.Millisecond)
			}
			if d.Waiting != nil {
				fmt.Fprintf(w, "waiting    %s\n", oneLine(d.Waiting.Message()))
			}
			tw := NewTable(w)
			fmt.Fprintln(tw, "\nATTEMPT\tSTATE\tEXECUTOR\tWORKER\tEXIT\tSTARTED\tFINISHED\tERROR")
			for _, a := range d.Attempts {
				exit := "-"
				if a.ExitCode != nil {
					exit = fmt.Sprint(*a.ExitCode)
				}
				fmt.Fprintf(tw, "%d %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.Number, a.ID, a.State, a.Executor, nameOr(oneLine(a.WorkerName), "-"), exit,
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

func runsLogsCommand(opts Options) *cobra.Command {
	var db dbFlags
	var follow bool
	var attempt int64
	c := &cobra.Command{
		Use:   "logs RUN_ID",
		Short: "Print the captured output of a run's latest attempt (or --attempt N); -f follows it until the run ends",
		Long: `Print the captured output of a run's latest attempt, or with --attempt N of its attempt N (the
numbers ` + "`" + opts.Binary + " runs show`" + ` lists). With -f, keep printing new output until the run ends, across the
attempts a retry creates (each new attempt is announced on standard error); with -f and --attempt N,
until attempt N has ended. While following, a database that stops answering (a restart, a failover, a
lost connection) is waited for, up to 5 minutes, once said on standard error: output goes on from the
byte already printed, none repeated or skipped.` + opts.clusterOnly(` On the cluster, a queued run that no live worker can
take says why on standard error (each new reason once while following).`) + `
On a terminal, control characters in the output are shown as escapes; into a file or a pipe it is
copied byte for byte. Text-direction characters (U+202E, …) are printed as written, on a terminal too:
the output is the command's, and right-to-left text needs them. (Every other table and message of
this CLI shows them as escapes, such as \u202e.)`,
		Args: oneID("runs logs takes one run id", "run id", "ql runs list"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if attempt < 0 || (attempt == 0 && cmd.Flags().Changed("attempt")) {
				return Usagef("--attempt %d is not an attempt number; give one that `ql runs show %s` lists (1 is the first attempt), or leave it out for the latest", attempt, args[0])
			}
			b, err := openExisting(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.ReadLog == nil {
				return fmt.Errorf("this build cannot read the logs of this database")
			}
			return copyLog(cmd.OutOrStdout(), func(out io.Writer) error {
				l := logFollower{b: b, runID: args[0], number: attempt, out: out, errOut: cmd.ErrOrStderr()}
				if follow {
					return l.follow(cmd.Context())
				}
				return l.once(cmd.Context())
			})
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	c.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new output until the run ends")
	c.Flags().Int64Var(&attempt, "attempt", 0, "print the attempt of this number, as "+opts.Binary+" runs show lists them (default: the latest)")
	return c
}

// copyLog runs write with out as it should receive a task's output: byte
// for byte into a file or pipe, with control characters made visible on a
// terminal, so a task's output cannot drive the operator's terminal.
func copyLog(out io.Writer, write func(io.Writer) error) error {
	if !isTerminal(out) {
		return write(out)
	}
	e := &escaper{w: out}
	if err := write(e); err != nil {
		return err
	}
	return e.Flush()
}

// Polling bounds of `runs logs -f`: quick while output flows, backing off
// to at most followMaxWait while the run is quiet, so a follower costs the
// database a few small reads a second at most.
const (
	followMinWait = 100 * time.Millisecond
	followMaxWait = time.Second
)

// A follower waits out an unavailable database (a restart, a failover, a
// lost connection: what ends a pooled connection) for up to
// followOutageLimit in one outage, asking again after a wait doubling up to
// followOutageMaxWait; a longer outage ends it with what to run.
const (
	followOutageLimit   = 5 * time.Minute
	followOutageMaxWait = 5 * time.Second
)

// logFollower copies a run's output to out.
type logFollower struct {
	b     *Backend
	runID string
	// number is the attempt asked for, 0 for the latest: a follower
	// given one stays on it rather than moving to the attempts after it.
	number int64
	out    io.Writer
	errOut io.Writer
	// attemptID is the attempt being copied and offset how much of its
	// log out has received.
	attemptID string
	offset    int64
	truncated bool
	// downSince is when the database stopped answering this follower
	// (zero while it answers); downWait the wait before the next try.
	downSince time.Time
	downWait  time.Duration
	// waiting is the last reason to wait for a worker printed, so a
	// follower says each one once, not at every round.
	waiting string
}

// noteWaiting says on standard error why no worker takes the queued Run,
// when that reason is new: a follower otherwise sits silent with nothing
// to tell the user that no worker fits.
func (l *logFollower) noteWaiting(w *run.Waiting) {
	msg := ""
	if w != nil {
		msg = w.Message()
	}
	if msg != "" && msg != l.waiting {
		fmt.Fprintf(l.errOut, "(run %s waits: %s)\n", l.runID, oneLine(msg))
	}
	l.waiting = msg
}

// chosen reads the run and the attempt l.number names, and makes it the
// one whose log is read.
func (l *logFollower) chosen(ctx context.Context) (run.Detail, run.Attempt, error) {
	d, err := l.b.Runs.RunGet(ctx, l.runID)
	if err != nil {
		return d, run.Attempt{}, err
	}
	a, err := d.Attempt(l.number)
	if err != nil {
		return d, a, err
	}
	l.attemptID = a.ID
	return d, a, nil
}

// once prints the chosen attempt's log as it is now.
func (l *logFollower) once(ctx context.Context) error {
	d, a, err := l.chosen(ctx)
	if err != nil {
		return err
	}
	switch {
	case a.LogRemoved:
		return qlerror.New(qlerror.NotFound, "run %s: the log of attempt %d was removed by log retention (it held %d bytes)", l.runID, a.Number, a.LogBytes)
	case a.StartedAtMs == nil && d.Waiting != nil && a.ID == d.Attempts[len(d.Attempts)-1].ID:
		return qlerror.New(qlerror.NotFound, "run %s: attempt %d has not started yet, so it has no output; it waits: %s", l.runID, a.Number, d.Waiting.Message())
	case a.StartedAtMs == nil:
		return qlerror.New(qlerror.NotFound, "run %s: attempt %d has not started yet, so it has no output", l.runID, a.Number)
	}
	if _, err := l.read(ctx, false); err != nil {
		return err
	}
	l.noteTruncated(a)
	return nil
}

// follow prints output as it arrives until the run ends. The run's state
// is read before its log in each round, so the round that sees the run
// ended also reads every byte written before it ended.
func (l *logFollower) follow(ctx context.Context) error {
	if l.number != 0 {
		return l.followOne(ctx)
	}
	wait := followMinWait
	for {
		d, err := l.b.Runs.RunGet(ctx, l.runID)
		if err != nil {
			if err := l.outage(ctx, err); err != nil {
				return err
			}
			continue
		}
		ended := d.Run.State.Terminal() || d.Run.State == run.Lost
		l.noteWaiting(d.Waiting)
		if n := len(d.Attempts); n > 0 && d.Attempts[n-1].ID != l.attemptID {
			// Output of the previous attempt written after the last round
			// is read from the offset reached before moving on.
			if l.attemptID != "" {
				if _, err := l.read(ctx, true); err != nil {
					if err := l.outage(ctx, err); err != nil {
						return err
					}
					continue
				}
				fmt.Fprintf(l.errOut, "(attempt %d started: %s)\n", d.Attempts[n-1].Number, d.Attempts[n-1].ID)
			}
			l.attemptID, l.offset, l.truncated = d.Attempts[n-1].ID, 0, false
		}
		got := int64(0)
		if l.attemptID != "" {
			if got, err = l.read(ctx, true); err != nil {
				if err := l.outage(ctx, err); err != nil {
					return err
				}
				continue
			}
		}
		l.answered()
		if ended {
			if n := len(d.Attempts); n > 0 {
				l.noteTruncated(d.Attempts[n-1])
			}
			// "ended: <state>" reads for every end ("is succeeded" did not).
			fmt.Fprintf(l.errOut, "(run %s ended: %s)\n", l.runID, d.Run.State)
			return nil
		}
		if err := pause(ctx, got, &wait); err != nil {
			return err
		}
	}
}

// followOne prints attempt l.number's output as it arrives until that
// attempt has ended. As in follow, the state is read before the log, so
// the round that sees the attempt ended (or a later attempt, or the run's
// end) also reads every byte it wrote.
func (l *logFollower) followOne(ctx context.Context) error {
	wait := followMinWait
	for {
		d, a, err := l.chosen(ctx)
		if err == nil {
			ended := a.State.Terminal() || a.ID != d.Attempts[len(d.Attempts)-1].ID || d.Run.State.Terminal() || d.Run.State == run.Lost
			if !ended {
				l.noteWaiting(d.Waiting)
			}
			var got int64
			if got, err = l.read(ctx, true); err == nil {
				l.answered()
				if ended {
					l.noteTruncated(a)
					fmt.Fprintf(l.errOut, "(attempt %d of run %s ended: %s; the run's state: %s)\n", a.Number, l.runID, a.State, d.Run.State)
					return nil
				}
				if err := pause(ctx, got, &wait); err != nil {
					return err
				}
				continue
			}
		}
		if err := l.outage(ctx, err); err != nil {
			return err
		}
	}
}

// outage decides what a follower does with the error of a round: an
// unavailable database is waited for (said once on standard error) and
// the round is run again, from the offset already printed, until
// followOutageLimit has passed since it stopped answering; any other
// error, or a longer outage, ends the follower.
func (l *logFollower) outage(ctx context.Context, err error) error {
	if !qlerror.Is(err, qlerror.Unavailable) {
		return err
	}
	now := time.Now()
	switch {
	case l.downSince.IsZero():
		l.downSince, l.downWait = now, followMinWait
		fmt.Fprintf(l.errOut, "(%s; waiting up to %s for the database to answer again, then following on from the output already printed)\n", oneLine(err.Error()), followOutageLimit)
	case now.Sub(l.downSince) >= followOutageLimit:
		return qlerror.Wrap(qlerror.Unavailable, err, "run %s: the database did not answer for %s while its log was followed; once it answers, run `ql runs logs %s -f` again", l.runID, followOutageLimit, l.runID)
	default:
		l.downWait = min(2*l.downWait, followOutageMaxWait)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(l.downWait):
		return nil
	}
}

// answered ends an outage: a whole round was read.
func (l *logFollower) answered() {
	if !l.downSince.IsZero() {
		fmt.Fprintf(l.errOut, "(the database answers again; following on)\n")
		l.downSince = time.Time{}
	}
}

// pause waits before a follower's next round: followMinWait after a round
// that printed output, else twice the last wait up to followMaxWait.
func pause(ctx context.Context, got int64, wait *time.Duration) error {
	if got > 0 {
		*wait = followMinWait
	} else {
		*wait = min(2**wait, followMaxWait)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(*wait):
		return nil
	}
}

// read copies the current attempt's log from the offset reached and
// returns how many bytes it copied. While following, a log that does not
// exist yet (the attempt has not started) is empty.
func (l *logFollower) read(ctx context.Context, following bool) (int64, error) {
	out := &countingWriter{w: l.out}
	next, truncated, err := l.b.ReadLog(ctx, l.attemptID, l.offset, out)
	if following && qlerror.Is(err, qlerror.NotFound) {
		return 0, nil
	}
	if err != nil {
		// What was printed before the read failed is not printed again:
		// the next read starts after it.
		l.offset += out.n
		return out.n, err
	}
	got := next - l.offset
	l.offset, l.truncated = next, l.truncated || truncated
	return got, nil
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (l *logFollower) noteTruncated(a run.Attempt) {
	if l.truncated || a.LogTruncated {
		fmt.Fprintf(l.errOut, "(output was truncated at the log size cap)\n")
	}
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
not started it) is cancelled at once. On the cluster a running run's worker hears the cancellation on
its next lease renewal, stops the command (SIGTERM, then SIGKILL after the task's killGrace) and
reports the run cancelled. On standalone and edge the serving process's executor finds the cancellation
at its next poll (about a second) and stops the command the same way. A lost run (nothing runs it any
more) is closed cancelled. A run that has already ended is left as it is.` + runsCancelAudit + apiHelp("runs cancel")
}

// runsCancelAudit is the sentence of runs cancel's help on who is recorded.
const runsCancelAudit = `
The cancel's event records who asked: the operating-system user, or over --api-url the API token and
the address it came from.
`

func runsCancelCommand(opts Options) *cobra.Command {
	var db dbFlags
	c := &cobra.Command{
		Use:   "cancel RUN_ID",
		Short: "Cancel a run: at once when it has not started, else its command is stopped",
		Long:  runsCancelLong(opts),
		Example: "  " + opts.Binary + " runs cancel 0190a4f2-0000-7000-8000-000000000000\n" +
			"  " + opts.Binary + " runs cancel 0190a4f2-0000-7000-8000-000000000000 --api-url https://ql.example.com:8080",
		Args: oneID("runs cancel takes one run id", "run id", "ql runs list"),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := openExistingForWrite(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.CancelRun == nil {
				return fmt.Errorf("this build cannot cancel runs of this database")
			}
			// Only the effect says this call ended the Run: one that its
			// command or an earlier cancel ended, even a moment before,
			// is reported as already ended.
			r, eff, err := b.CancelRun(cmd.Context(), args[0], actor())
			if err != nil {
				return err
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
			fmt.Fprintf(cmd.OutOrStdout(), "run %s: cancellation requested; it is %s until the command is stopped (follow with `%s runs logs -f %s`)\n", r.ID, r.State, opts.Binary, r.ID)
			return nil
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	return c
}
