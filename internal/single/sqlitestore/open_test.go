package sqlitestore

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A file that is not a SQLite database is reported as one, with a backup as
// the remedy, by both the writable and the read-only open: its permissions
// and directory are not what is wrong with it.
func TestOpeningAFileThatIsNoDatabaseAdvisesABackup(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "qinglong.db")
	if err := os.WriteFile(path, bytes.Repeat([]byte("not a database\n"), 7000), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Path: path, NowMs: func() int64 { return time.Now().UnixMilli() }}
	for name, open := range map[string]func(context.Context, Config) (*Store, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
		st, err := open(t.Context(), cfg)
		if err == nil {
			st.Close()
			t.Fatalf("%s opened a file that is no database", name)
		}
		if msg := err.Error(); !strings.Contains(msg, "corrupt or not a SQLite database; restore it from a backup") || strings.Contains(msg, "check that") {
			t.Errorf("%s: %q; want it called corrupt or no database, with a backup as the remedy", name, msg)
		}
	}
}

// A connection the store opens after its file was moved away (a reader
// the pool opens lazily, the commit watch) fails rather than creating a
// new, empty database at the path, which a CLI command or the next start
// would take for the real one.
func TestAConnectionOpenedAfterTheFileMovedCreatesNoDatabaseAtItsPath(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "qinglong.db")
	st, err := Open(t.Context(), Config{Path: path, NowMs: func() int64 { return time.Now().UnixMilli() }, ReadConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Held, the pool's first reader makes the ping below open a second.
	held, err := st.reader.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := os.Rename(path, path+".away"); err != nil {
		t.Fatal(err)
	}
	if err := st.Ping(t.Context()); err == nil {
		t.Error("a reader opened after the file moved answered a ping; want it to fail, finding no file")
	}
	if w, err := st.WatchCommits(t.Context()); err == nil {
		w.Close()
		t.Error("the commit watch opened after the file moved; want it to fail, finding no file")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("stat %s after the store opened connections with its file moved away: %v; want no file there", path, err)
	}
}

// With its read connections opened before the file moved away, the store
// answers as many readers at once as its pool holds from the file it
// opened, none of which needs a new connection that would find no file.
func TestEveryReaderOfAStoreWhoseReadersAreOpenAnswersWhileItsFileIsAway(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "qinglong.db")
	const readers = 3
	st, err := Open(t.Context(), Config{Path: path, NowMs: func() int64 { return time.Now().UnixMilli() }, ReadConns: readers})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := st.OpenReaders(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path, path+".away"); err != nil {
		t.Fatal(err)
	}
	// Held together, so each is a connection of its own.
	for i := range readers {
		c, err := st.reader.Conn(t.Context())
		if err == nil {
			defer c.Close()
			var n int
			err = c.QueryRowContext(t.Context(), `SELECT count(*) FROM runs`).Scan(&n)
		}
		if err != nil {
			t.Fatalf("reader %d of %d with the file away: %v; want it answered from the file the store opened", i+1, readers, err)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("stat %s after reading with the file away: %v; want no file there", path, err)
	}
}
