package singlecli

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// A command that writes, run on a file an older build left while no server
// serves it, migrates the file as the server's start would, and says so as
// the server's start does (serve.migrated): from then on older builds no
// longer open it, which an operator who has not started the new server yet
// must not learn only when going back fails. A file already migrated gets
// no notice.
func TestACommandThatMigratesAnOlderBuildsFileSaysSo(t *testing.T) {
	dir := t.TempDir()
	dump, err := os.ReadFile(filepath.Join("..", "server", "testdata", "upgrade", "sqlite-0019", "qinglong.sql"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(string(dump))
	var applied int
	if err == nil {
		err = db.QueryRow(`SELECT count(*) FROM ql_schema_migrations`).Scan(&applied)
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("load the older build's dump: %v", err)
	}
	var pending []string
	for _, m := range sqlitestore.Stream()[applied:] {
		pending = append(pending, m.ID)
	}
	if len(pending) == 0 {
		t.Fatal("the older build's file has every migration of this build: nothing to migrate")
	}

	code, _, errOut := ql(t, "tokens", "create", "ci", "--scope", "read", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("tokens create on the older build's file: %d %q", code, errOut)
	}
	for _, says := range append(pending, "migrated the database", "older builds no longer open it", "restore the backup") {
		if !strings.Contains(errOut, says) {
			t.Errorf("the command that migrated the older build's file says %q; want it to say %q", errOut, says)
		}
	}
	code, _, errOut = ql(t, "tokens", "create", "cd", "--scope", "read", "--data-dir", dir)
	if code != 0 || strings.Contains(errOut, "migrated") {
		t.Fatalf("tokens create on the migrated file: %d %q; want no migration notice", code, errOut)
	}
}
