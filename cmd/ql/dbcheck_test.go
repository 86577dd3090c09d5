package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cli"
)

// `ql db check` run inside a data directory, with no --data-dir and no
// cluster URL set, checks that directory's database, as every other
// command reads the working directory's: it no longer asks for a
// PostgreSQL URL there.
func TestDBCheckInADataDirectoryWithoutAClusterURLChecksItsDatabase(t *testing.T) {
	t.Setenv("QL_DATABASE_URL", "")
	t.Setenv("QL_DATABASE_RUNTIME_URL", "")
	t.Setenv("QL_DATA_DIR", "")
	dir := t.TempDir()
	defs := filepath.Join(dir, "defs.yaml")
	if err := os.WriteFile(defs, []byte("project: p\ntasks:\n  - name: job\n    script: echo hi\ntriggers: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := cli.Main(context.Background(), options(), []string{"apply", "-f", defs, "--data-dir", dir}, &out, &errOut); code != 0 {
		t.Fatalf("apply: exit %d %q", code, errOut.String())
	}
	t.Chdir(dir)
	out.Reset()
	errOut.Reset()
	if code := cli.Main(context.Background(), options(), []string{"db", "check"}, &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "ok: qinglong.db passed SQLite's integrity_check") {
		t.Fatalf("db check in a data directory: exit %d %q %q; want the directory's database checked", code, out.String(), errOut.String())
	}
}

// The root help's summary of `db` says its check and vacuum work on the
// embedded SQLite database, not only that it manages the cluster's.
func TestTheDBGroupsSummarySaysItChecksTheEmbeddedDatabaseToo(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := cli.Main(context.Background(), options(), []string{"--help"}, &out, &errOut); code != 0 {
		t.Fatalf("--help: exit %d %q", code, errOut.String())
	}
	const want = "db            Check and compact the embedded SQLite database; set up and check the cluster's PostgreSQL one\n"
	if !strings.Contains(out.String(), want) {
		t.Fatalf("the root help's db line is not %q:\n%s", want, out.String())
	}
}
