package singlecli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `deps mirror TYPE --registry URL` over --api-url sets what the server's
// npm fetches from, `deps mirror` shows it (over the API and on the data
// directory alike), a flag not given keeps what is set, a URL with a
// password is refused without showing it, and `deps install node`
// installs every declared package again with the registry, as the page's
// Install all does.
func TestDepsMirrorSetsTheRegistryAndDepsInstallUsesIt(t *testing.T) {
	dir := installedDir(t)
	admin := newToken(t, dir, "boss", "admin")
	bin, calls := t.TempDir(), filepath.Join(t.TempDir(), "npm-calls")
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" >> "+calls+"\necho npm: done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	base := serveAPI(t, dir, "standalone")
	t.Setenv("QL_TOKEN", admin)
	if o := overAPI(t, base, "deps", "mirror", "node", "--registry", "https://registry.npmmirror.com"); o.code != 0 || !strings.Contains(o.out, "node: registry https://registry.npmmirror.com, proxy (default)") {
		t.Fatalf("deps mirror node --registry: %+v", o)
	}
	if o := overAPI(t, base, "deps", "mirror", "node", "--proxy", "http://127.0.0.1:7890"); o.code != 0 || !strings.Contains(o.out, "registry https://registry.npmmirror.com, proxy http://127.0.0.1:7890") {
		t.Errorf("deps mirror node --proxy kept no registry: %+v", o)
	}
	if o := overAPI(t, base, "deps", "mirror", "python", "--registry", "https://u:hunter2@pypi.example/simple"); o.code == 0 || strings.Contains(o.err, "hunter2") || !strings.Contains(o.err, "carries a user or password") {
		t.Errorf("deps mirror with a password: %+v; want it refused without the password", o)
	}
	for _, o := range []outcome{overAPI(t, base, "deps", "mirror"), onDB(t, dir, "deps", "mirror")} {
		if o.code != 0 || !strings.Contains(o.out, "https://registry.npmmirror.com") || !strings.Contains(o.out, "python") {
			t.Errorf("deps mirror: %+v; want both kinds, node's registry set", o)
		}
	}
	add := overAPI(t, base, "deps", "add", "node", "axios")
	if add.code != 0 {
		t.Fatalf("deps add: %+v", add)
	}
	again := overAPI(t, base, "deps", "install", "node")
	if again.code != 0 || !strings.Contains(again.out, "runs logs") {
		t.Fatalf("deps install node: %+v", again)
	}
	// Following each Run's log ends when the Run does.
	for _, o := range []outcome{add, again} {
		id, _, _ := strings.Cut(o.out, "\n")
		if f := overAPI(t, base, "runs", "logs", id, "-f"); !strings.Contains(f.out, "npm: done") {
			t.Fatalf("runs logs %s -f: %+v", id, f)
		}
	}
	if o := overAPI(t, base, "deps", "install", "node", "never_added"); o.code == 0 || !strings.Contains(o.err, "is not declared here") {
		t.Errorf("deps install of a name not declared: %+v", o)
	}
	if o := onDB(t, dir, "deps", "install", "node"); o.code != 2 || !strings.Contains(o.err, "--api-url") {
		t.Errorf("deps install on the data directory: %+v; want 2 asking for --api-url", o)
	}
	b, err := os.ReadFile(calls)
	if got := string(b); err != nil || strings.Count(got, "install\n") != 2 || strings.Count(got, "--registry\nhttps://registry.npmmirror.com\n") != 2 {
		t.Errorf("npm was not given the registry in each of two installs (%v):\n%s", err, b)
	}
}
