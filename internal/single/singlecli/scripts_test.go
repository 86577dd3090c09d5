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

// `ql scripts` lists, shows, writes and removes the files of the data
// directory's scripts folder: a path naming .. or a link leading outside
// is refused, nothing outside read or written; put and rm are recorded in
// the audit trail by path, size and sha256, never content, and refused
// while the clock reads behind the database.
func TestTheScriptsCommandsKeepToTheFolderAndRecordTheirChanges(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, "project: demo\n")
	const content = "console.log('content-never-recorded')\n"
	src := writeFile(t, t.TempDir(), "jd.js", content)
	if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := ql(t, "scripts", "put", "jd.js", src, "--data-dir", dir); code != 0 || !strings.Contains(out, "wrote jd.js (") {
		t.Fatalf("scripts put: exit %d %q %q", code, out, errOut)
	}
	if code, out, _ := ql(t, "scripts", "list", "--data-dir", dir); code != 0 || !strings.Contains(out, "jd.js") {
		t.Fatalf("scripts list: exit %d %q", code, out)
	}
	if code, out, _ := ql(t, "scripts", "show", "jd.js", "--data-dir", dir); code != 0 || out != content {
		t.Fatalf("scripts show: exit %d %q", code, out)
	}
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("outside"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "scripts", "out")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		exit int
		says string
	}{
		{[]string{"show", "../qinglong.db"}, 2, `script path "../qinglong.db" names ..`},
		{[]string{"show", "out/secret.txt"}, 5, "leads outside the scripts folder"},
		{[]string{"put", "out/new.js", src}, 5, "leads outside the scripts folder"},
		{[]string{"rm", "out/secret.txt"}, 5, "leads outside the scripts folder"},
		{[]string{"list", "out"}, 5, "leads outside the scripts folder"},
	} {
		code, out, errOut := ql(t, append(append([]string{"scripts"}, c.args...), "--data-dir", dir)...)
		if code != c.exit || !strings.Contains(errOut, c.says) || strings.Contains(out, "outside") {
			t.Errorf("scripts %s: exit %d %q %q; want %d saying %q", strings.Join(c.args, " "), code, out, errOut, c.exit, c.says)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("the folder outside holds %d entries", len(entries))
	}
	if code, out, errOut := ql(t, "scripts", "rm", "jd.js", "--data-dir", dir); code != 0 || !strings.Contains(out, "removed jd.js") {
		t.Fatalf("scripts rm: exit %d %q %q", code, out, errOut)
	}
	code, out, _ := ql(t, "audit", "list", "--data-dir", dir, "--action", "script.created")
	if code != 0 || !strings.Contains(out, "jd.js") || strings.Contains(out, "content-never-recorded") {
		t.Errorf("audit list: exit %d %q; want script.created of jd.js without its content", code, out)
	}
	if code, out, _ := ql(t, "audit", "list", "--data-dir", dir, "--action", "script.deleted"); code != 0 || !strings.Contains(out, "jd.js") {
		t.Errorf("audit list: exit %d %q; want script.deleted of jd.js", code, out)
	}

	held, _ := databaseAheadOfTheClock(t)
	if code, _, errOut := ql(t, "scripts", "put", "jd.js", src, "--data-dir", held); code != 1 || !strings.Contains(errOut, "behind") {
		t.Errorf("scripts put while the clock reads behind: exit %d %q; want 1 clock_behind_database", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(held, "scripts", "jd.js")); !os.IsNotExist(err) {
		t.Errorf("the held put wrote the file: %v", err)
	}
}
