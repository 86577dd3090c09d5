package server

import (
	"context"
	"testing"
)

// stopAtCleanup stops srv when the test ends and fails the test when the
// stop is not clean. Its context is a fresh one, bounded: t.Context() is
// cancelled before cleanups run, so a stop given it could never be clean.
// A server the test stopped itself is left alone: that stop's outcome
// was the test's to judge (some stop out of time on purpose).
func stopAtCleanup(t testing.TB, srv *Server) {
	t.Helper()
	t.Cleanup(func() {
		if srv.stopping.Load() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*testStopTimeout)
		defer cancel()
		if err := srv.Stop(ctx); err != nil {
			t.Errorf("the server did not stop cleanly: %v", err)
		}
	})
}
