// Package cleanstop stops what a test started when the test ends, and
// fails the test when that stop is not clean: a stop whose error is thrown
// away hides a server that leaks a goroutine, a connection or a process.
package cleanstop

import (
	"context"
	"testing"
	"time"
)

// AtCleanup has stop run when t ends, with a fresh context bounded by
// within, and fails t, naming what, when stop returns an error. The
// context is not t.Context(), which is cancelled before cleanups run: a
// stop given it could never be clean.
func AtCleanup(t testing.TB, what string, within time.Duration, stop func(context.Context) error) {
	t.Helper()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), within)
		defer cancel()
		if err := stop(ctx); err != nil {
			t.Errorf("%s did not stop cleanly: %v", what, err)
		}
	})
}
