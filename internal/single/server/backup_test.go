package server

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// A backup that fails part way leaves no partial copy to be mistaken for
// a whole one: a directory it made is removed, one given empty is left
// empty (so the same command can be run again).
func TestAFailedBackupLeavesNoPartialCopy(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	b, err := OpenBackend(t.Context(), LayoutOf(dir).DB, nil)
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

// A backup is never written into a directory other users may write to
// (they could replace the copy before it is restored); a directory they
// may only read is fine.
func TestABackupRefusesADirectoryOthersMayWrite(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	b, err := OpenBackend(t.Context(), LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	for _, mode := range []os.FileMode{0o777, 0o770, 0o702} {
		given := t.TempDir()
		if err := os.Chmod(given, mode); err != nil {
			t.Fatal(err)
		}
		_, err := Backup(t.Context(), LayoutOf(dir).DB, given, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "chmod 700 "+given) {
			t.Fatalf("a backup into a directory of mode %04o: %v; want it refused naming chmod 700", mode, err)
		}
		if entries, _ := os.ReadDir(given); len(entries) != 0 {
			t.Fatalf("the refused backup wrote %v", entries)
		}
	}
	readable := t.TempDir()
	if err := os.Chmod(readable, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Backup(t.Context(), LayoutOf(dir).DB, readable, io.Discard); err != nil {
		t.Fatalf("a backup into a directory of mode 0755: %v", err)
	}
}

// A backup's report counts one log file, and one byte, in the singular.
func TestABackupOfOneLogCountsItInTheSingular(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteRunning(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, "printf x")
	c := consoleClient(t)
	site.runNow(t, c, site.signIn(t, c, site.tokens[apitoken.Operate]))
	waitFor(t, "the Run's one-byte log", 10*time.Second, func() bool {
		logs, _ := filepath.Glob(filepath.Join(LayoutOf(site.dir).Logs, "*.log"))
		if len(logs) != 1 {
			return false
		}
		st, err := os.Stat(logs[0])
		return err == nil && st.Size() == 1
	})
	var progress bytes.Buffer
	if _, err := Backup(t.Context(), LayoutOf(site.dir).DB, filepath.Join(t.TempDir(), "copy"), &progress); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(progress.String(), "logs: 1 file (1 byte)\n") {
		t.Fatalf("a backup of one log of one byte reported %q; want logs: 1 file (1 byte)", progress.String())
	}
}

// cutOffCheck is a backup's progress that, at each line it is given, looks
// at the destination as a backup killed there (SIGKILL, a power cut) would
// leave it.
type cutOffCheck struct {
	dest  string
	lines int
	whole []string
}

func (c *cutOffCheck) Write(p []byte) (int, error) {
	c.lines++
	if _, err := os.Stat(LayoutOf(c.dest).DB); err == nil {
		c.whole = append(c.whole, strings.TrimSpace(string(p)))
	}
	return len(p), nil
}

// A backup cut off before its end holds no qinglong.db in its directory,
// so it cannot be taken for a finished one: the copy is built in a
// partial directory and moved into place, the database last, only once
// whole and on disk. A finished one holds the database and no partial
// directory.
func TestABackupCutOffBeforeItsEndHoldsNoDatabase(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if err := os.WriteFile(LayoutOf(dir).Secrets, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "bk")
	check := &cutOffCheck{dest: dest}
	if _, err := Backup(t.Context(), LayoutOf(dir).DB, dest, check); err != nil {
		t.Fatal(err)
	}
	if check.lines < 2 || len(check.whole) != 0 {
		t.Fatalf("over %d progress lines, the backup's directory held qinglong.db while it was still being written, at %q", check.lines, check.whole)
	}
	for _, p := range []string{LayoutOf(dest).DB, LayoutOf(dest).Logs, LayoutOf(dest).Secrets} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("the finished backup lacks %s: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dest, PartialBackup)); !os.IsNotExist(err) {
		t.Fatalf("the finished backup still holds %s (%v)", PartialBackup, err)
	}
}

// A backup into the data directory it copies, or below it (its logs),
// is refused before anything is written, saying why: the copy would take
// in itself and be lost with the directory it should restore.
func TestABackupRefusesATargetInsideTheDataDirectoryItCopies(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	b, err := OpenBackend(t.Context(), LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, dest := range []string{dir, filepath.Join(dir, "backup"), filepath.Join(LayoutOf(dir).Logs, "b"), filepath.Join(link, "backup")} {
		_, err := Backup(t.Context(), LayoutOf(dir).DB, dest, io.Discard)
		if !qlerror.Is(err, qlerror.Invalid) || !strings.Contains(err.Error(), "is inside the data directory") || !strings.Contains(err.Error(), "give a directory outside it") {
			t.Errorf("a backup into %s: %v; want it refused as inside the data directory, saying what to do", dest, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "backup")); err == nil {
			t.Errorf("the refused backup into %s created a directory", dest)
		}
	}
	if _, err := Backup(t.Context(), LayoutOf(dir).DB, filepath.Join(t.TempDir(), "beside"), io.Discard); err != nil {
		t.Fatalf("a backup outside the data directory: %v", err)
	}
}
