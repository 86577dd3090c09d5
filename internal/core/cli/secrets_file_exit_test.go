package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A secrets file refused for its mode or its content is the input the user
// fixes, as a credential file at 0644 is: every secrets command of every
// binary exits 2 for it (not 4, a conflict with what exists), saying what
// to do, and each binary's secrets help says so.
func TestASecretsFileToFixExitsTwoOnEveryCommandThatReadsIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	open := filepath.Join(dir, "open.json")
	if err := os.WriteFile(open, []byte(`{"a": "b"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte(`{"a": `), 0o600); err != nil {
		t.Fatal(err)
	}
	runHelp := func(binary string) (int, string) {
		var out, errOut bytes.Buffer
		if binary == "ql-worker" {
			return MainSingle(context.Background(), SecretsFileCommand("ql-worker"), []string{"--help"}, &out, &errOut), out.String()
		}
		return MainIn(context.Background(), Options{Binary: binary}, []string{"secrets", "--help"}, strings.NewReader(""), &out, &errOut), out.String()
	}
	// Each binary's secrets command: the trees' of ql and ql-edge, and a
	// worker host's.
	binaries := map[string]func(args []string, stdin string) (int, string){
		"ql": func(args []string, stdin string) (int, string) {
			var out, errOut bytes.Buffer
			code := MainIn(context.Background(), Options{Binary: "ql"}, append([]string{"secrets"}, args...), strings.NewReader(stdin), &out, &errOut)
			return code, errOut.String()
		},
		"ql-edge": func(args []string, stdin string) (int, string) {
			var out, errOut bytes.Buffer
			code := MainIn(context.Background(), Options{Binary: "ql-edge"}, append([]string{"secrets"}, args...), strings.NewReader(stdin), &out, &errOut)
			return code, errOut.String()
		},
		"ql-worker": func(args []string, stdin string) (int, string) {
			var out, errOut bytes.Buffer
			c := SecretsFileCommand("ql-worker")
			c.SetIn(strings.NewReader(stdin))
			code := MainSingle(context.Background(), c, args, &out, &errOut)
			return code, errOut.String()
		},
	}
	for binary, run := range binaries {
		// The help says the exit code the refusal exits with.
		if _, help := runHelp(binary); !strings.Contains(help, "what to fix (exit 2)") {
			t.Errorf("%s secrets --help does not say a file to fix exits 2:\n%s", binary, help)
		}
		for _, file := range []struct{ path, says string }{
			{open, "run chmod 600 " + open},
			{broken, "is not a JSON object of string values"},
		} {
			for _, args := range [][]string{{"list"}, {"set", "token"}, {"delete", "a"}} {
				code, stderr := run(append(args, "--secrets-file", file.path), "value\n")
				if code != ExitUsage || !strings.Contains(stderr, file.says) {
					t.Errorf("%s secrets %s --secrets-file %s: exit %d, said %q; want exit %d saying %q", binary, args[0], file.path, code, stderr, ExitUsage, file.says)
				}
			}
		}
	}
}
