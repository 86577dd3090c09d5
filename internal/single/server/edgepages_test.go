package server

import (
	"path/filepath"
	"testing"
)

// TestTheEdgeServerMakesItsDatabaseWithSmallPagesWithinTheSameWALBound: a
// database the edge server creates has 1 KiB pages (a Run's commits then
// write about a third of the bytes), one that exists keeps its own, and
// the -wal file's bound stays 1 MiB either way: 1,024 pages of the new
// database, 256 of an existing one with 4 KiB pages.
func TestTheEdgeServerMakesItsDatabaseWithSmallPagesWithinTheSameWALBound(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name           string
		dir            string
		pageBytes, wal int
	}{
		{"new", filepath.Join(t.TempDir(), "edge"), 1024, 1024},
		{"existing", installedDir(t), 4096, 256},
	} {
		if got := edgeWALPages(LayoutOf(c.dir).DB); got != c.wal {
			t.Errorf("%s database: the WAL bound is %d pages before the start, want %d", c.name, got, c.wal)
		}
		if _, err := startQuiet(t, Config{DataDir: c.dir, Profile: Edge}); err != nil {
			t.Fatal(err)
		}
		if got := count(t, observer(t, c.dir), `SELECT page_size FROM pragma_page_size`); got != c.pageBytes {
			t.Errorf("%s database: %d-byte pages after an edge start, want %d", c.name, got, c.pageBytes)
		}
		if got := edgeWALPages(LayoutOf(c.dir).DB); got != c.wal {
			t.Errorf("%s database: the WAL bound is %d pages once it exists, want %d", c.name, got, c.wal)
		}
	}
}
