// Package sqlitetest opens a real embedded database for tests that need a
// store behind what they check (tokens, users) but test something else,
// so they share one way to get a migrated store (on the wall clock, or on
// a clock the test moves).
package sqlitetest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/single/sqlitestore"
	"github.com/qinglong/qinglong/internal/testkit/filetemplate"
)

// Open returns a migrated, ready store in a file of the test's temporary
// directory, on the wall clock, closed when the test ends.
func Open(t testing.TB) *sqlitestore.Store {
	t.Helper()
	return OpenAt(t, filepath.Join(t.TempDir(), "ql.db"), wallMs)
}

// OpenAt returns a migrated, ready store in the new file at path on the
// clock nowMs (a test that moves time itself), closed when the test ends.
// The file starts as a copy of one migrated once per test binary.
func OpenAt(t testing.TB, path string, nowMs func() int64) *sqlitestore.Store {
	t.Helper()
	CopyMigrated(t, path)
	st, err := sqlitestore.Open(t.Context(), sqlitestore.Config{Path: path, NowMs: nowMs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if applied, err := st.Migrate(t.Context()); err != nil || len(applied) > 0 {
		t.Fatalf("migrate a migrated copy: applied %v, %v", applied, err)
	}
	if err := st.Ready(t.Context()); err != nil {
		t.Fatal(err)
	}
	return st
}

// CopyMigrated writes a migrated database file to path (which must not
// exist yet), for a test that starts a server or a command on an
// installed database and is not about the first start's migration.
func CopyMigrated(t testing.TB, path string) {
	t.Helper()
	filetemplate.CopyTo(t, "sqlitestore-migrated", migrateFresh, path)
}

func migrateFresh(ctx context.Context, path string) error {
	st, err := sqlitestore.Open(ctx, sqlitestore.Config{Path: path, NowMs: wallMs})
	if err != nil {
		return err
	}
	if _, err := st.Migrate(ctx); err != nil {
		return errors.Join(err, st.Close())
	}
	return st.Close()
}

func wallMs() int64 { return time.Now().UnixMilli() }

// EmptyFileDataDir is a new data directory whose database file is there
// but empty, as a restore or a copy cut short leaves it.
func EmptyFileDataDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "qinglong.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}
