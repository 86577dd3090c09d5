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
