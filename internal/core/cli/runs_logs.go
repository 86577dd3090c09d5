package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/logtail"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/validate"
)

func runsLogsCommand(opts Options) *cobra.Command {
	var db dbFlags
	var follow, exitStatus bool
	var attempt, tail int64
	var out string
	c := &cobra.Command{
		Use:   "logs RUN_ID",
		Short: "Print the captured output of a run's latest attempt (or --attempt N); -f follows it until the run ends",
		Long: `Print the captured output of a run's latest attempt, or with --attempt N of its attempt N (the
numbers ` + "`" + opts.Binary + " runs show`" + ` lists). With -f, keep printing new output until the run ends, across the
attempts a retry creates, saying on standard error how each attempt ended, until when a retry waits out its
backoff, when the next attempt starts, and how the run ended; with -f and --attempt N,
until attempt N has ended. With --tail N (-n N) only the last N lines of the log are printed (1 to 10000;
a last line without a newline counts as one), found by reading the log backwards from its end, so a long log is not read
whole; with -f it then follows on from there, and an attempt a retry creates later is printed whole. Following a Run that has not ended on a database no server` + opts.clusterOnly(" (or, on the\ncluster, no replica)") + ` runs on says so on standard error first. Each read of the database (the run, a MiB of its output) has 10 seconds; one
that takes longer is the database not answering. While following, a database that stops answering (a
restart, a failover, a lost connection) is waited for, up to 5 minutes, once said on standard error:
output goes on from the byte already printed, none repeated or skipped.
` + apiHelp("runs logs") + ` It prints what it prints on the database, byte for byte. While following, a
server that stops answering is waited for as the database is, and a request refused for the token's
rate is asked again after the wait the server names.` + opts.clusterOnly(` On the cluster, a queued run that no live worker can
take says why on standard error (each new reason once while following).`) + `
On a terminal, control characters in the output are shown as escapes, and a message on standard
error after output whose last line has no newline (-f's "(run … ended: …)") starts a line of its own;
into a file or a pipe it is copied byte for byte. Text-direction characters (U+202E, …) are printed as written, on a terminal too:
the output is the command's, and right-to-left text needs them. (Every other table and message of
this CLI shows them as escapes, such as \u202e.)
With --exit-status the exit code says how the Run ended, after -f's "(run … ended: …)": 0 when it
succeeded, 6 when it failed, timed out, was lost or cancelled; a script waits for a Run and learns
whether it worked. Without -f it prints the log of a Run that has ended, then its end, and exits the
same way; a Run that has not ended is refused (exit 2): add -f to wait for it. Without --exit-status
the exit code is 0 however the Run ended.
Without -f, an attempt that has not started yet (log_not_started) and a log log retention removed
(log_removed) are refused (exit 1); -o json words the refusal as a JSON line on standard error.`,
		Example: "  " + opts.Binary + " runs logs 0190a4f2-0000-7000-8000-000000000000\n" +
			"  " + opts.Binary + " runs logs 0190a4f2-0000-7000-8000-000000000000 --tail 50 -f\n" +
			"  " + opts.Binary + " runs logs 0190a4f2-0000-7000-8000-000000000000 -f --exit-status",
		Args: oneID("runs logs takes one run id", "run id", "runs", "list"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out != "text" && out != "json" {
				return Usagef("--output %q is not one of text, json", out)
			}
			if attempt < 0 || (attempt == 0 && cmd.Flags().Changed("attempt")) {
				return Usagef("--attempt %d is not an attempt number; give one that `%s` lists (1 is the first attempt), or leave it out for the latest", attempt, suggest(cmd, "runs", "show", args[0]))
			}
			if cmd.Flags().Changed("tail") {
				if err := logtail.CheckLines("--tail", tail); err != nil {
					return Usagef("%s", err.Error())
				}
			}
			if exitStatus && attempt != 0 {
				return Usagef("--exit-status exits by how the Run ended, not one attempt; leave out --attempt")
			}
			b, err := openExisting(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			return printRunLog(cmd, opts, b, args[0], attempt, follow, exitStatus, int(tail))
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	c.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new output until the run ends")
	c.Flags().BoolVar(&exitStatus, "exit-status", false, "exit 0 if the run succeeded, 6 if it ended otherwise (failed, timed_out, lost, cancelled); without -f the run must have ended; not with --attempt, since it tells how the whole run ended")
	c.Flags().Int64VarP(&tail, "tail", "n", 0, fmt.Sprintf("print only the last N lines of the log (1 to %d); with -f, then follow on from there", logtail.MaxLines))
	c.Flags().StringVarP(&out, "output", "o", "text", "text or json: the log is printed as written either way; with json a refusal ends standard error with the JSON error line (its reason, such as log_not_started or log_removed), as every -o json does")
	c.Flags().Int64Var(&attempt, "attempt", 0, "print the attempt of this number, as "+opts.Binary+" runs show lists them (default: the latest)")
	return c
}

// logSourceOf is where the logs of b are read, its name in a follower's
// messages, and the time limit of each of its reads: the server's API
// given --api-url (each request has its own), else the database's logs,
// read a piece at a time, each piece and each read of the run given limit.
func logSourceOf(b *Backend, limit time.Duration) (logSource, string, time.Duration, error) {
	if b.api != nil {
		return b.api.readRunLog, "the server", 0, nil
	}
	if b.ReadLog == nil {
		return nil, "", 0, fmt.Errorf("this build cannot read the logs of this database")
	}
	return func(ctx context.Context, at attemptRef, offset int64, w io.Writer) (int64, bool, error) {
		truncated := false
		for {
			// Read whole before it is copied out: the limit is the
			// database's, not that of whoever reads the output.
			var piece bytes.Buffer
			var next int64
			var cut bool
			err := within(ctx, limit, "the database", func(ctx context.Context) (err error) {
				next, cut, err = b.ReadLog(ctx, at.id, offset, logPiece, &piece)
				return err
			})
			if err != nil {
				return offset, truncated, err
			}
			if next < offset {
				return offset, truncated, &logShorter{held: next, offset: offset}
			}
			if _, err := w.Write(piece.Bytes()); err != nil {
				return offset, truncated, err
			}
			offset, truncated = next, truncated || cut
			if int64(piece.Len()) < logPiece {
				return offset, truncated, nil
			}
		}
	}, "the database", limit, nil
}

// logShorter is a log source's failure when the log holds fewer bytes
// than the offset it was asked from: it was cut or replaced since those
// bytes were read (the API refuses such an offset with 416). A follower
// goes on from the log's end, saying so, rather than wait at an offset
// the log may never reach again.
type logShorter struct{ held, offset int64 }

func (e *logShorter) Error() string {
	return fmt.Sprintf("the log holds %d bytes, fewer than the %d already read: it was cut or replaced", e.held, e.offset)
}

// readLimit bounds each read `runs logs` makes of the database, as a
// server bounds an API request's database work: a database that does not
// answer (every connection taken, a disk or network that hangs) is said,
// and, while following, waited out as an outage, rather than a command
// that sits silent for as long as the database does.
const readLimit = 10 * time.Second

// logPiece is the most of a log one read of the database takes.
const logPiece = 1 << 20

// within runs read with limit, and names its failure when limit ran out
// first: from did not answer in time, which a follower waits out as it
// does a database that does not answer at all.
func within(ctx context.Context, limit time.Duration, from string, read func(context.Context) error) error {
	if limit <= 0 {
		return read(ctx)
	}
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	err := read(rctx)
	if err != nil && errors.Is(rctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return qlerror.Wrap(qlerror.Unavailable, err, "%s did not answer within %s (busy, or its disk or network stalled)", from, validate.Duration(limit))
	}
	return err
}

// copyLog runs write with out as it should receive a task's output: byte
// for byte into a file or pipe, with control characters made visible on a
// terminal, so a task's output cannot drive the operator's terminal.
// noteUnfinishedUnattended tells on stderr, before following a Run that
// has not ended, that nothing is there to start or finish it (no server
// runs on the database): the follower would otherwise wait in silence.
// Its read has the follower's time limit; one that fails notes nothing,
// and the follower meets the failure itself.
func noteUnfinishedUnattended(cmd *cobra.Command, opts Options, b *Backend, runID string, limit time.Duration) {
	if b.Unattended == nil || b.Runs == nil {
		return
	}
	var d run.Detail
	err := within(cmd.Context(), limit, "the database", func(ctx context.Context) (err error) {
		d, err = b.Runs.RunGet(ctx, runID)
		return err
	})
	// A queued Run's own reason says there is no server: the follower
	// prints it, once.
	if err != nil || d.Run.State.Terminal() || d.Run.State == run.Lost || (d.Waiting != nil && d.Waiting.Reason == run.WaitNoServer) {
		return
	}
	noteUnattendedOf(cmd, opts, b, runID, 1, true)
}

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
