// Package sqlitetest opens a real embedded database for tests that need a
// store behind what they check (tokens, users) but test something else,
// so they share one way to get a migrated store (on the wall clock, or on
// a clock the test moves).
package sqlitetest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// Open returns a migrated, ready store in a file of the test's temporary
// directory, on the wall clock, closed when the test ends.
func Open(t testing.TB) *sqlitestore.Store {
	t.Helper()
	return OpenAt(t, filepath.Join(t.TempDir(), "ql.db"), func() int64 { return time.Now().UnixMilli() })
}

// OpenAt returns a migrated, ready store in the file at path on the clock
// nowMs (a test that moves time itself), closed when the test ends.
func OpenAt(t testing.TB, path string, nowMs func() int64) *sqlitestore.Store {
	t.Helper()
	st, err := sqlitestore.Open(t.Context(), sqlitestore.Config{Path: path, NowMs: nowMs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if _, err := st.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := st.Ready(t.Context()); err != nil {
		t.Fatal(err)
	}
	return st
}
