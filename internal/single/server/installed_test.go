package server

import (
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// installedDir is a data directory whose database is already migrated, as
// every start after the first finds it. The tests that are not about a
// first start begin there: migrating a new database is half a second of
// CPU under the race detector, and this package starts dozens of servers.
// The health and hardening tests still start on empty directories, so a
// first start that migrates stays covered here too.
func installedDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	sqlitetest.CopyMigrated(t, LayoutOf(dir).DB)
	return dir
}
