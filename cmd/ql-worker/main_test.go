package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/leakcheck"
)

func TestMain(m *testing.M) { leakcheck.Main(m) }

func qlWorker(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.MainSingle(context.Background(), command(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// The worker binary is the worker alone: its help names the worker's flags
// and nothing of servers, databases or the other commands.
func TestTheWorkerBinaryIsTheWorkerAlone(t *testing.T) {
	t.Parallel()
	code, out, _ := qlWorker(t, "--help")
	if code != 0 || !strings.Contains(out, "ql-worker [flags]") || !strings.Contains(out, "--credential-file") {
		t.Fatalf("exit %d, help:\n%s", code, out)
	}
	for _, word := range []string{"postgres", "database-url", "ql serve", "ql apply", "ql worker --"} {
		if strings.Contains(strings.ToLower(out), word) {
			t.Errorf("ql-worker --help mentions %q:\n%s", word, out)
		}
	}
	cred := filepath.Join(t.TempDir(), "worker.cred")
	if err := os.WriteFile(cred, []byte("qlw_credential\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := qlWorker(t, "--concurrency", "0", "--server", "https://r.example", "--credential-file", cred); code != 2 || !strings.Contains(stderr, "--concurrency 0 is outside 1–256") {
		t.Errorf("--concurrency 0: exit %d, %q; want a usage error naming the range", code, stderr)
	}
}

// Not parallel: sets the environment. Flags come from QL_<FLAG>, and a
// credential file that others can read is refused (exit 1) with the fix,
// before anything is sent.
func TestFlagsComeFromTheEnvironmentAndAnOpenCredentialFileIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "worker.cred")
	if err := os.WriteFile(path, []byte("qlw_secret-credential\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("QL_SERVER", "https://replica.invalid:8081")
	t.Setenv("QL_CREDENTIAL_FILE", path)
	t.Setenv("QL_DATA_DIR", t.TempDir())
	code, _, stderr := qlWorker(t)
	if code != 1 || !strings.Contains(stderr, "chmod 600 "+path) || strings.Contains(stderr, "qlw_secret") {
		t.Fatalf("exit %d, stderr %q; want exit 1 saying chmod 600, never the credential", code, stderr)
	}
}
