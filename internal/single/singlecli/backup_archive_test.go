package singlecli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// unpackBackup unpacks the archive at file into a new directory, as the
// restore steps say, and returns it.
func unpackBackup(t *testing.T, file string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "restored")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"gzip", "-t", file}, {"tar", "-xzf", file, "-C", dir}} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// `backup --archive FILE` writes the backup as one archive, here and
// over the API alike (--archive - to standard output): unpacked, each is
// a data directory holding the triggers applied before the backup, and
// no FILE.partial or working copy is left beside FILE.
func TestABackupArchiveFromTheCommandLineOrTheAPIUnpacksToADataDirectory(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	out := t.TempDir()
	local := filepath.Join(out, "local.tar.gz")
	if code, stdout, errOut := ql(t, "backup", "--archive", local, "--data-dir", dir); code != 0 || !strings.Contains(stdout, "backup archive written to "+local) {
		t.Fatalf("backup --archive: %d %q %q", code, stdout, errOut)
	}
	if code, _, errOut := ql(t, "backup", "--archive", local, "--data-dir", dir); code != 2 || !strings.Contains(errOut, "exists; give a new file") {
		t.Errorf("backup --archive onto an existing file: %d %q; want it refused", code, errOut)
	}
	token := newToken(t, dir, "keeper", "admin")
	base := serveAPI(t, dir, "standalone")
	t.Setenv("QL_TOKEN", token)
	t.Setenv("QL_DATA_DIR", "")
	code, archive, errOut := ql(t, "backup", "--archive", "-", "--api-url", base)
	if code != 0 || !strings.Contains(errOut, "backup archive written to standard output") {
		t.Fatalf("backup --archive - --api-url: %d %q", code, errOut)
	}
	remote := filepath.Join(out, "remote.tar.gz")
	if err := os.WriteFile(remote, []byte(archive), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{local, remote} {
		restored := unpackBackup(t, file)
		if code, stdout, errOut := ql(t, "triggers", "list", "--data-dir", restored); code != 0 || !strings.Contains(stdout, "yearly") {
			t.Errorf("triggers list on the unpacked %s: %d %q %q; want the trigger applied before the backup", filepath.Base(file), code, stdout, errOut)
		}
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Errorf("beside the archives: %v; want only local.tar.gz and remote.tar.gz", entries)
	}
}

// A backup archive the data directory would hold is refused, as a backup
// directory there is: it would be lost with the directory it restores.
func TestABackupArchiveInsideTheDataDirectoryIsRefused(t *testing.T) {
	dir := installedDir(t)
	code, _, errOut := ql(t, "backup", "--archive", filepath.Join(dir, "backup.tar.gz"), "--data-dir", dir)
	if code != 2 || !strings.Contains(errOut, "is inside the data directory") {
		t.Fatalf("backup --archive inside the data directory: %d %q; want it refused", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "backup.tar.gz.partial")); !os.IsNotExist(err) {
		t.Errorf("the refused backup left %v", err)
	}
}
