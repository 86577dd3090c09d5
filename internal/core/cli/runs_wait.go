package cli

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// errNotSucceeded ends a command given --exit-status whose Run ended
// otherwise than succeeded, once the follower has said how it ended: it
// exits ExitNotSucceeded, adding nothing.
var errNotSucceeded = errors.New("the run ended, not succeeded")

// runEnded: the Run will change no more (lost included: no attempt of it
// is left to run).
func runEnded(s run.State) bool {
	return s.Terminal() || s == run.Lost
}

// exitByEnd is what a command given --exit-status returns for a Run that
// ended in state s.
func exitByEnd(s run.State) error {
	if s == run.Succeeded {
		return nil
	}
	return errNotSucceeded
}

// printRunLog prints run runID's log as `runs logs` does: attempt number
// (0: the latest) as it is now, or with follow until the Run ends. With
// exitStatus it ends by how the Run ended: nil for succeeded, else
// errNotSucceeded; tail, when not 0, prints the last tail lines of the
// first log read rather than all of it; without follow, a Run that has not ended is a usage
// error, refused before anything is printed.
func printRunLog(cmd *cobra.Command, opts Options, b *Backend, runID string, number int64, follow, exitStatus bool, tail int) error {
	src, from, limit, err := logSourceOf(b, readLimit)
	if err != nil {
		return err
	}
	var end run.State
	err = copyLog(cmd.OutOrStdout(), func(out io.Writer) error {
		l := logFollower{runs: b.Runs, log: src, tail: tail, tailLog: tailSourceOf(b, limit, src), from: from, limit: limit, again: followAgain(cmd, runID), runID: runID, number: number,
			out: out, errOut: cmd.ErrOrStderr(), named: func(msg string) string { return asSuggested(cmd, msg) }}
		if follow {
			noteUnfinishedUnattended(cmd, opts, b, runID, limit)
			err := l.follow(cmd.Context())
			end = l.last.Run.State
			return err
		}
		if exitStatus {
			if err := l.endedOnce(cmd.Context()); err != nil {
				return err
			}
		}
		err := l.once(cmd.Context())
		end = l.last.Run.State
		if exitStatus && qlerror.Is(err, qlerror.NotFound) {
			// The Run was read, so what is missing is output: it ended
			// before an attempt started, or retention removed the log.
			// How it ended is still what was asked.
			l.say("(%s)\n", oneLine(err.Error()))
			err = nil
		}
		if err == nil && exitStatus {
			l.say("%s\n", runEnd(runID, l.last))
		}
		return err
	})
	if err != nil || !exitStatus {
		return err
	}
	return exitByEnd(end)
}

// endedOnce refuses, before anything is printed, to say by its exit how a
// Run ended that has not ended: only following it can.
func (l *logFollower) endedOnce(ctx context.Context) error {
	d, err := l.runGet(ctx)
	if err != nil {
		return err
	}
	if !runEnded(d.Run.State) {
		return Usagef("run %s has not ended (it is %s), so --exit-status has no end to exit by; add -f to follow it until it ends: `%s`", l.runID, d.Run.State, l.again)
	}
	return nil
}
