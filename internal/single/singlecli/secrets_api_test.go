package singlecli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/process"
)

// `secrets set`, `list` and `delete` given --api-url edit the server's
// own secrets file and print as on the data directory; a read token is
// refused (exit 5). Not parallel: it sets $QL_TOKEN.
func TestSecretsCommandsOverTheAPIEditTheServersFile(t *testing.T) {
	dir := secretsDir(t)
	admin := newToken(t, dir, "admin", "admin")
	reader := newToken(t, dir, "reader", "read")
	base := serveAPI(t, dir, "standalone")
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", reader)
	if code, _, errOut := ql(t, "secrets", "list", "--api-url", base); code != 5 || !strings.Contains(errOut, "needs a token of scope admin") {
		t.Fatalf("list with a read token: %d %q; want exit 5", code, errOut)
	}
	t.Setenv("QL_TOKEN", admin)
	code, out, errOut := qlStdin(t, "remote-value\n", "secrets", "set", "hook-key", "--api-url", base)
	if code != 0 || out != "secret hook-key: created\nused by: rich channel hook, rich/zeta-argv (env A)\n" {
		t.Fatalf("set over the API: %d %q %q", code, out, errOut)
	}
	if got, err := (process.Secrets{Path: filepath.Join(dir, "qinglong-secrets.json")}).Resolve([]string{"hook-key"}); err != nil || got["hook-key"] != "remote-value" {
		t.Fatalf("the server's file resolves %q, %v; want the value set", got["hook-key"], err)
	}
	code, remote, errOut := ql(t, "secrets", "list", "--api-url", base)
	if code != 0 {
		t.Fatalf("list over the API: %d %q", code, errOut)
	}
	if _, local, _ := ql(t, "secrets", "list", "--data-dir", dir); remote != local || !strings.Contains(remote, "hook-key  every project  yes") {
		t.Fatalf("list over the API:\n%s\nwant what the data directory gives:\n%s", remote, local)
	}
	code, out, errOut = ql(t, "secrets", "delete", "hook-key", "--api-url", base)
	if code != 0 || out != "secret hook-key: deleted\n" || !strings.Contains(errOut, "warning: hook-key is still used by rich channel hook") {
		t.Fatalf("delete over the API: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := ql(t, "secrets", "delete", "hook-key", "--api-url", base); code != 1 || !strings.Contains(errOut, `secret "hook-key" is not defined`) {
		t.Fatalf("delete an undefined secret over the API: %d %q; want exit 1", code, errOut)
	}
	if code, _, errOut := ql(t, "secrets", "list", "--api-url", base, "--secrets-file", filepath.Join(dir, "x.json")); code != 2 || !strings.Contains(errOut, "not both") {
		t.Fatalf("--api-url with --secrets-file: %d %q; want exit 2", code, errOut)
	}
}
