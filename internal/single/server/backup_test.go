package server

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A backup that fails part way leaves no partial copy to be mistaken for
// a whole one: a directory it made is removed, one given empty is left
// empty (so the same command can be run again).
func TestAFailedBackupLeavesNoPartialCopy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b, err := OpenBackend(t.Context(), LayoutOf(dir).DB)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	// A secrets "file" that cannot be read as one fails the last step,
	// after the database and the logs were copied.
	if err := os.Mkdir(LayoutOf(dir).Secrets, 0o700); err != nil {
		t.Fatal(err)
	}
	made := filepath.Join(t.TempDir(), "new")
	if _, err := Backup(t.Context(), LayoutOf(dir).DB, made, io.Discard); err == nil {
		t.Fatal("the backup did not fail")
	}
	if _, err := os.Stat(made); !os.IsNotExist(err) {
		t.Fatalf("the directory the failed backup made is still there (%v)", err)
	}
	given := t.TempDir()
	if _, err := Backup(t.Context(), LayoutOf(dir).DB, given, io.Discard); err == nil {
		t.Fatal("the backup did not fail")
	}
	if entries, err := os.ReadDir(given); err != nil || len(entries) != 0 {
		t.Fatalf("the empty directory given holds %v (%v) after the failed backup; want it empty again", entries, err)
	}
}
