// Package sqlitetest opens a real embedded database for tests that need a
// store behind what they check (tokens, users) but test something else,
// so they share one way to get a migrated store on the wall clock.
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
	st, err := sqlitestore.Open(t.Context(), sqlitestore.Config{Path: filepath.Join(t.TempDir(), "ql.db"), NowMs: func() int64 { return time.Now().UnixMilli() }})
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
