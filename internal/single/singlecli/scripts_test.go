package singlecli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A command that reads the scripts folder from its environment.
const scriptsDirFile = `project: demo
tasks:
  - name: show
    script: echo "scripts=$QL_SCRIPTS_DIR"; cat "$QL_SCRIPTS_DIR/hello.txt"
triggers:
  - name: every-second
    task: show
    cron: "* * * * * *"
    timezone: UTC
`

// Every command a single node starts finds the scripts folder, as an
// absolute path, in $QL_SCRIPTS_DIR: the folder --scripts-dir names, made
// at start when missing, or else the data directory's scripts folder.
func TestEveryCommandFindsTheScriptsFolderInQLScriptsDir(t *testing.T) {
	t.Parallel()
	scripts := filepath.Join(t.TempDir(), "my-scripts")
	if err := os.MkdirAll(scripts, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(scripts, "hello.txt"), []byte("hello from the scripts folder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir, db := serveDefs(t, scriptsDirFile, "--scripts-dir", scripts)
	runID := runIn(t, db, "succeeded")
	code, out, errOut := ql(t, "runs", "logs", runID, "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "scripts="+scripts+"\n") || !strings.Contains(out, "hello from the scripts folder") {
		t.Fatalf("the log of run %s: exit %d %q %q; want $QL_SCRIPTS_DIR=%s and the file read from it", runID, code, out, errOut, scripts)
	}

	dir, db = serveDefs(t, scriptsDirFile)
	// Failed: the folder made at start is empty, so cat finds no file.
	runID = runIn(t, db, "failed")
	st, err := os.Stat(filepath.Join(dir, "scripts"))
	if err != nil || !st.IsDir() || st.Mode().Perm() != 0o755 {
		t.Fatalf("the data directory's scripts folder after the start: %v, %v; want a folder of mode 0755", st, err)
	}
	if code, out, _ := ql(t, "runs", "logs", runID, "--data-dir", dir); code != 0 || !strings.Contains(out, "scripts="+filepath.Join(dir, "scripts")+"\n") {
		t.Fatalf("the log of run %s: exit %d %q; want $QL_SCRIPTS_DIR naming the data directory's folder", runID, code, out)
	}
}

// `ql backup` carries the data directory's scripts folder: its folders
// and files with their modes; a link in it, which could lead anywhere, is
// left out.
func TestABackupCarriesTheDataDirectorysScriptsFolder(t *testing.T) {
	t.Parallel()
	dir, dest := installedDir(t), filepath.Join(t.TempDir(), "copy")
	applyDefs(t, dir, "project: demo\n")
	for name, mode := range map[string]os.FileMode{"scripts/sub/jd_a.js": 0o644, "scripts/run.sh": 0o755} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name+"\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "scripts", "out")); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := ql(t, "backup", dest, "--data-dir", dir)
	if code != 0 || !strings.Contains(stderr, "scripts: "+filepath.Join(dest, "scripts")+" (2 files)") {
		t.Fatalf("backup: exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
	}
	for name, mode := range map[string]os.FileMode{"scripts/sub/jd_a.js": 0o644, "scripts/run.sh": 0o755} {
		p := filepath.Join(dest, filepath.FromSlash(name))
		b, err := os.ReadFile(p)
		st, serr := os.Stat(p)
		if err != nil || serr != nil || string(b) != name+"\n" || st.Mode().Perm() != mode {
			t.Errorf("%s in the backup: %q %v %v; want its content, mode %04o", name, b, err, st, mode)
		}
	}
	if _, err := os.Lstat(filepath.Join(dest, "scripts", "out")); !os.IsNotExist(err) {
		t.Errorf("the link was copied: %v", err)
	}
}
