package executor

import (
	"os"
	"path/filepath"
	"testing"
)

// A symlink planted at an attempt's log path is refused: the server never
// writes through it, and its target keeps its content.
func TestASymlinkAtTheLogPathIsRefusedAndItsTargetUntouched(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "victim")
	if err := os.WriteFile(target, []byte("untouched\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, link := range map[string]string{"to a file": target, "dangling": filepath.Join(dir, "new-file")} {
		path := filepath.Join(dir, name+".log")
		if err := os.Symlink(link, path); err != nil {
			t.Fatal(err)
		}
		if log, err := createLog(path, 1024, nil); err == nil {
			log.Close()
			t.Fatalf("%s: the log was opened through a symlink", name)
		}
	}
	if data, _ := os.ReadFile(target); string(data) != "untouched\n" {
		t.Fatalf("the symlink's target now holds %q", data)
	}
	if _, err := os.Lstat(filepath.Join(dir, "new-file")); !os.IsNotExist(err) {
		t.Fatalf("a file was created through the dangling symlink: %v", err)
	}
}

// A log that already exists is never truncated or appended to.
func TestAnExistingLogFileIsRefused(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a.log")
	if err := os.WriteFile(path, []byte("earlier\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if log, err := createLog(path, 1024, nil); err == nil {
		log.Close()
		t.Fatal("an existing log file was opened")
	}
	if data, _ := os.ReadFile(path); string(data) != "earlier\n" {
		t.Fatalf("the existing log now holds %q", data)
	}
}
