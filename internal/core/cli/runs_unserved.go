package cli

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/run"
)

// holdsSlot: a Run in these states has an attempt a server dispatched or
// runs; with no server alive (one killed), it stays so in the database
// until the next server's recovery ends the attempt lost.
func holdsSlot(s run.State) bool {
	return s == run.Dispatching || s == run.Running
}

// unservedDataDir is the data directory no server serves, asked about the
// unfinished Run runID, when the backend can tell (a single-node database
// read with --data-dir) and none does; "" otherwise, a failed look
// included: a running Run then reads as the database has it, and a queued
// Run's own reason is the store's.
func unservedDataDir(cmd *cobra.Command, b *Backend, runID string) string {
	return unservedBy(cmd, b, runID).DataDir
}

// unservedBy is what the backend tells of the data directory no server
// serves, asked about runID; the zero Unattended when it cannot tell or a
// server serves it.
func unservedBy(cmd *cobra.Command, b *Backend, runID string) Unattended {
	if b.Unattended == nil {
		return Unattended{}
	}
	u, err := b.Unattended(cmd.Context(), runID)
	if err != nil || !u.NoServer {
		return Unattended{}
	}
	return u
}

// unservedRun says what becomes of a dispatching or running Run whose
// server is gone (killed, or its machine stopped): nothing watches its
// command, and the next server's recovery ends the attempt lost and
// retries it as its task says. Without it the Run would read as running
// for ever, with nothing saying why nothing changes.
func unservedRun(cmd *cobra.Command, dataDir string) string {
	return fmt.Sprintf("its server is not running on this data directory (%s), so nothing watches its command; "+
		"the attempt is recovered at the next `%s`: ended lost, and retried as its task's retry policy says", dataDir, suggest(cmd, "serve", "--data-dir", dataDir))
}

// unservedList is the note under a page of Runs read from a data
// directory no server serves, when the page holds a Run that a server
// would start or watch; "" when it holds none, and then nothing is asked.
func unservedList(cmd *cobra.Command, b *Backend, runs []run.Run) string {
	held := slices.IndexFunc(runs, func(r run.Run) bool { return holdsSlot(r.State) })
	queued := slices.IndexFunc(runs, func(r run.Run) bool { return r.State == run.Queued })
	if held < 0 && queued < 0 {
		return ""
	}
	u := unservedBy(cmd, b, runs[max(held, queued)].ID)
	dataDir := u.DataDir
	if dataDir == "" {
		return ""
	}
	if u.HandedOver {
		return handedOverList(cmd, u)
	}
	serve := suggest(cmd, "serve", "--data-dir", dataDir)
	switch {
	case held >= 0 && queued >= 0:
		return fmt.Sprintf("note: no server is running on this data directory (%s): nothing watches the commands of its dispatching and running Runs, and nothing starts its queued ones; "+
			"at the next `%s` each attempt left running is recovered (ended lost, retried as its task's retry policy says) and the queued Runs start", dataDir, serve)
	case held >= 0:
		return fmt.Sprintf("note: no server is running on this data directory (%s): nothing watches the commands of its dispatching and running Runs; "+
			"at the next `%s` each attempt left running is recovered (ended lost, retried as its task's retry policy says)", dataDir, serve)
	case queued >= 0:
		return fmt.Sprintf("note: no server is running on this data directory (%s), so nothing starts its queued Runs; start one with `%s`", dataDir, serve)
	}
	return ""
}

// handedOverList is the note under a page of Runs read from a data
// directory handed over (`export --with-state`): a plain `serve` there is
// refused, so the note names the take-back, after which the Runs it holds
// queued run (late), and the attempts left running are recovered.
func handedOverList(cmd *cobra.Command, u Unattended) string {
	waits := fmt.Sprintf("its %d queued Runs stay queued here, and run only", u.Queued)
	switch u.Queued {
	case 0:
		waits = "its dispatching and running Runs are recovered only"
	case 1:
		waits = "its 1 queued Run stays queued here, and runs only"
	}
	return "note: " + handedOver(cmd, u.DataDir, waits)
}

// handedOver is run.HandedOverNote as this command line says it: the
// take-back named with its own binary and the location flags it was given.
func handedOver(cmd *cobra.Command, dataDir, waits string) string {
	return run.HandedOverNote(dataDir, waits, suggest(cmd, "serve", "--take-back", "--data-dir", dataDir))
}
