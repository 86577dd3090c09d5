package replica

import (
	"context"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/run"
)

// CodeRunFinished is the line a replica logs when a worker's result it
// recorded finished a Run: the standalone and edge servers' run.finished,
// with the same attributes and level (run.FinishedAttrs, run.FinishedLevel).
const CodeRunFinished = "run.finished"

// logSweptFinished logs each Run this replica's lease sweep finished (its
// worker's lease ran out: lost, timed out, or cancelled as asked), with the
// code and attributes of a worker's result's line, so a Run lost to a
// crashed worker is named in the log as a failed one is. Only the sweep
// that ended an attempt reports its Run (SKIP LOCKED gives each expired
// attempt to one sweep), and a Run given a next attempt has not finished.
func (r *replica) logSweptFinished(ended []pgstore.EndedRun) {
	for _, e := range ended {
		r.log.Log(context.Background(), run.FinishedLevel(e.State), "run finished; its worker's lease ran out",
			append([]any{"code", CodeRunFinished}, run.FinishedAttrs(e.Run, e.Attempt)...)...)
	}
}

// logFinished logs the Run completion c finished, once: only the call
// that finished it carries Finished (a replay, on this replica or another,
// finished nothing), and a result that gave the Run a next attempt is not
// its finish.
func (r *replica) logFinished(c pgstore.Completed) {
	if c.Replayed || c.Finished == "" {
		return
	}
	r.log.Log(context.Background(), run.FinishedLevel(c.Finished), "run finished; its worker's result is recorded",
		append([]any{"code", CodeRunFinished}, run.FinishedAttrs(c.Run, c.Attempt)...)...)
}
