package httpapi

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/testkit/cleanstop"
)

// shutdownAtCleanup shuts srv down when the test ends and fails the test
// when the shutdown is not clean.
func shutdownAtCleanup(t *testing.T, srv *httpserve.Server) {
	t.Helper()
	cleanstop.AtCleanup(t, "the server", 10*time.Second, srv.Shutdown)
}
