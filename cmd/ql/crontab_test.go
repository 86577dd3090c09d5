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

// The file `ql crontab convert` writes says the default concurrency of
// every profile ql serves, so it holds for a reader who serves it with
// --profile edge or on the cluster as well as standalone.
func TestTheFileQlConvertsSaysTheConcurrencyOfEveryProfileItServes(t *testing.T) {
	t.Parallel()
	tab := filepath.Join(t.TempDir(), "crontab")
	if err := os.WriteFile(tab, []byte("0 3 * * * /opt/backup.sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := cli.Main(context.Background(), options(), []string{"crontab", "convert", tab, "--project", "ops", "--tz", "UTC"}, &out, &errOut); code != 0 {
		t.Fatalf("ql crontab convert: exit %d %q", code, errOut.String())
	}
	for _, want := range []string{
		"at most --concurrency commands run at once (by default the machine's CPU count);\n",
		"#   with --profile edge by default 1; with --profile cluster each worker's own;\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("ql crontab convert printed:\n%s\nwant %q", out.String(), want)
		}
	}
}

// `ql crontab convert --help` says the scripts folder --scripts-dir
// defaults to is given by a cluster worker as well as a single node.
func TestQlCrontabConvertHelpSaysWorkersGiveTheScriptsFolder(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := cli.Main(context.Background(), options(), []string{"crontab", "convert", "--help"}, &out, &errOut); code != 0 {
		t.Fatalf("ql crontab convert --help: exit %d %q", code, errOut.String())
	}
	if help := strings.Join(strings.Fields(out.String()), " "); !strings.Contains(help, "as does every command a cluster worker given --scripts-dir starts") {
		t.Errorf("ql crontab convert --help:\n%s\nwant --scripts-dir's default to name the workers that give $QL_SCRIPTS_DIR", out.String())
	}
}
