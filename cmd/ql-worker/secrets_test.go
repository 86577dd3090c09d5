package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cli"
)

// qlWorkerWithInput runs ql-worker with stdin as its standard input.
func qlWorkerWithInput(stdin string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	c := command()
	c.SetIn(strings.NewReader(stdin))
	code := cli.MainSingle(context.Background(), c, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// A worker host edits the worker's secrets file with ql-worker alone, the
// file named as the worker names it (--secrets-file or QL_SECRETS_FILE):
// the value from standard input, never printed back, the file kept at
// mode 0600; without a file the command says which flag it needs.
func TestTheWorkerBinaryEditsItsOwnSecretsFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "worker-secrets.json")
	code, out, stderr := qlWorkerWithInput("s3cr3t-value\n", "secrets", "set", "api_token", "--secrets-file", file)
	if code != 0 || out != "secret api_token: created\n" {
		t.Fatalf("secrets set: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var values map[string]string
	if err := json.Unmarshal(b, &values); err != nil || values["api_token"] != "s3cr3t-value" {
		t.Fatalf("the file holds %q (%v); want api_token set to the value read, without its line ending", b, err)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the file's mode: %v (%v); want 0600", st.Mode(), err)
	}

	t.Setenv(cli.EnvName("secrets-file"), file)
	code, out, stderr = qlWorkerWithInput("", "secrets", "list")
	if code != 0 || !strings.Contains(out, "api_token") || strings.Contains(out+stderr, "s3cr3t") ||
		!strings.Contains(out, "ql secrets list --database-url URL --secrets-file FILE") {
		t.Fatalf("secrets list from $%s: exit %d, stdout %q, stderr %q; want the name, no value, and where the uses are known", cli.EnvName("secrets-file"), code, out, stderr)
	}
	if code, _, stderr = qlWorkerWithInput("", "secrets", "delete", "nope"); code != 1 || !strings.Contains(stderr, `secret "nope" is not defined`) || !strings.Contains(stderr, "defines api_token") {
		t.Fatalf("deleting an undefined name: exit %d, %q; want exit 1 naming the names defined", code, stderr)
	}
	if code, out, stderr = qlWorkerWithInput("", "secrets", "delete", "api_token"); code != 0 || out != "secret api_token: deleted\n" {
		t.Fatalf("secrets delete: exit %d, stdout %q, stderr %q", code, out, stderr)
	}

	t.Setenv(cli.EnvName("secrets-file"), "")
	if code, _, stderr = qlWorkerWithInput("value", "secrets", "set", "api_token"); code != 2 || !strings.Contains(stderr, "--secrets-file is required") {
		t.Fatalf("no secrets file: exit %d, %q; want a usage error naming --secrets-file", code, stderr)
	}
}

// ql-worker secrets refuses a secrets file that is a symbolic link, as
// the worker's Runs do, exiting 2 (a file to fix, as one of the wrong
// mode is) with what to put there.
func TestTheWorkerBinaryRefusesASymlinkedSecretsFile(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	if err := os.WriteFile(real, []byte(`{"api_token":"s3cr3t-value"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := qlWorkerWithInput("", "secrets", "list", "--secrets-file", link)
	if code != cli.ExitUsage || !strings.Contains(stderr, "is a symbolic link, which is not followed") || strings.Contains(out+stderr, "api_token") {
		t.Fatalf("secrets list through a link: exit %d, stdout %q, stderr %q; want exit 2 refusing the link, naming nothing it holds", code, out, stderr)
	}
}
