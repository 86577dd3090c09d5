package httpapi

import (
	"context"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/httpserve"
)

// shutdownAtCleanup shuts srv down when the test ends and fails the test
// when the shutdown is not clean. Its context is a fresh one, bounded:
// t.Context() is cancelled before cleanups run.
func shutdownAtCleanup(t *testing.T, srv *httpserve.Server) {
	t.Helper()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("the server did not shut down cleanly: %v", err)
		}
	})
}
