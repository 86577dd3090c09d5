package server

import (
	"context"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/cleanstop"
)

// stopAtCleanup stops srv when the test ends and fails the test when the
// stop is not clean, within twice the test's stop timeout. A server the
// test stopped itself is left alone: that stop's outcome was the test's to
// judge (some stop out of time on purpose).
func stopAtCleanup(t testing.TB, srv *Server) {
	t.Helper()
	cleanstop.AtCleanup(t, "the server", 2*testStopTimeout, func(ctx context.Context) error {
		if srv.stopping.Load() {
			return nil
		}
		return srv.Stop(ctx)
	})
}
