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
