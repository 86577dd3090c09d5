package singlecli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// `ql export` prints a file that applies back with every object unchanged,
// -o writes the same bytes to a file only its owner may read, and what the
// file cannot say (an archived project) is noted on stderr only.
func TestExportPrintsAFileThatAppliesBackUnchanged(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, storetest.EveryField)
	code, out, errOut := ql(t, "export", "rich", "--data-dir", dir)
	if code != 0 || errOut != "" || !strings.HasPrefix(out, "project: rich\n") || !strings.Contains(out, "name: lonely") {
		t.Fatalf("export: exit %d %q %q; want the file, every task in it, on stdout alone", code, out, errOut)
	}
	code, back, errOut := ql(t, "apply", "-f", writeFile(t, dir, "back.yaml", out), "--data-dir", dir)
	if code != 0 || back != "1 project, 3 tasks and 2 triggers unchanged\n" {
		t.Fatalf("applying the export: exit %d %q %q; want the project, 3 tasks and 2 triggers unchanged", code, back, errOut)
	}
	file := filepath.Join(dir, "rich.yaml")
	if code, _, errOut := ql(t, "export", "rich", "-o", file, "--data-dir", dir); code != 0 || errOut != "wrote project rich (3 tasks, 2 triggers) to "+file+"\n" {
		t.Fatalf("export -o: exit %d %q", code, errOut)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != out {
		t.Fatalf("-o wrote %q (%v); want what stdout gets", b, err)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("-o made the file with mode %v (%v); want 0600", st.Mode().Perm(), err)
	}

	applyDefs(t, dir, strings.Replace(out, "project: rich\n", "project: rich\nstatus: archived\n", 1))
	code, out, errOut = ql(t, "export", "rich", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "status: archived\n") || !strings.HasPrefix(errOut, "note: project rich is archived (status: archived in the file)") {
		t.Fatalf("export of an archived project: exit %d %q %q; want status: archived and the note on stderr", code, out, errOut)
	}
}

// A name that names no project exits 1 naming the projects there are, a
// malformed one 2 before the database is opened, and -o json (the other
// commands' output format) is refused rather than taken as a file name.
func TestExportOfAnUnknownProjectNamesTheProjectsThere(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	code, out, errOut := ql(t, "export", "nope", "--data-dir", dir)
	if code != 1 || out != "" || !strings.Contains(errOut, `project "nope" does not exist; the only project is api`) {
		t.Fatalf("export nope: exit %d %q %q; want exit 1 naming the project api", code, out, errOut)
	}
	if code, _, errOut := ql(t, "export", "No/pe", "--data-dir", filepath.Join(dir, "missing")); code != 2 || !strings.Contains(errOut, "lower-case letters") {
		t.Fatalf("export No/pe: exit %d %q; want exit 2 saying what a name is", code, errOut)
	}
	if code, _, errOut := ql(t, "export", "api", "-o", "json", "--data-dir", dir); code != 2 || !strings.Contains(errOut, "export always writes YAML") {
		t.Fatalf("export -o json: exit %d %q; want exit 2", code, errOut)
	}
	if code, _, errOut := ql(t, "export", "api", "--data-dir", filepath.Join(dir, "missing")); code != 1 || !strings.Contains(errOut, "no QingLong database at") {
		t.Fatalf("export without a database: exit %d %q; want exit 1, creating nothing", code, errOut)
	}
}
