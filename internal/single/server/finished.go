package server

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/run"
)

// runsFinished counts the Runs a store operation of this server reported
// it finished (qinglong_runs_finished_total); nothing without metrics.
func (s *Server) runsFinished(c run.FinishCounts) {
	if s.metrics != nil {
		s.metrics.RunsFinished(c)
	}
}

// runFinished counts one Run a store operation of this server reported it
// finished in state; "" counts nothing.
func (s *Server) runFinished(state run.State) {
	if s.metrics != nil {
		s.metrics.RunFinished(state)
	}
}

// cancelRun is the API's and the console's cancel: the store's, counting
// the Run when this call finished it (a cancel before it started).
func (s *Server) cancelRun(ctx context.Context, runID, actor string) (run.Run, run.CancelEffect, error) {
	r, eff, err := s.store.CancelRun(ctx, runID, actor)
	if eff.Finished {
		s.runFinished(run.Cancelled)
	}
	return r, eff, err
}
