package singlecli

import (
	"testing"

	"github.com/qinglong/qinglong/internal/single/server"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// installedDir is a data directory whose database is already migrated, as
// every command after the first finds it. The tests that are not about a
// first command begin there: migrating a new database is half a second of
// CPU under the race detector, and this package runs hundreds of
// commands. The tests that give a new or missing directory keep covering
// the first command's migration.
func installedDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	sqlitetest.CopyMigrated(t, server.LayoutOf(dir).DB)
	return dir
}
