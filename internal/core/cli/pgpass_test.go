package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A password file group or others may read is warned about, as psql
// refuses it, whenever a connection would read its password from it:
// found as pgx finds it (the URL's passfile, else $PGPASSFILE, else
// ~/.pgpass), and not when the URL or $PGPASSWORD gives the password.
func TestAPasswordFileOthersMayReadIsWarnedAboutWithChmod600(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	open := filepath.Join(dir, "open.pgpass")
	private := filepath.Join(dir, "private.pgpass")
	for path, mode := range map[string]os.FileMode{open: 0o644, private: 0o600} {
		if err := os.WriteFile(path, []byte("*:*:*:ql_runtime:pw\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	env := func(vars ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(vars); i += 2 {
			m[vars[i]] = vars[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, c := range []struct {
		name, url string
		getenv    func(string) string
		warn      bool
	}{
		{"$PGPASSFILE open", "postgres://ql_runtime@db.example/ql", env("PGPASSFILE", open), true},
		{"the URL's passfile open", "postgres://ql_runtime@db.example/ql?passfile=" + open, env(), true},
		{"no ~/.pgpass", "postgres://ql_runtime@db.example/ql", env("HOME", dir), false},
		{"$PGPASSFILE private", "postgres://ql_runtime@db.example/ql", env("PGPASSFILE", private), false},
		{"a password in the URL", "postgres://ql_runtime:pw@db.example/ql", env("PGPASSFILE", open), false},
		{"$PGPASSWORD", "postgres://ql_runtime@db.example/ql", env("PGPASSFILE", open, "PGPASSWORD", "pw"), false},
	} {
		msg := PassfileExposed(c.url, c.getenv)
		if (msg != "") != c.warn || (c.warn && (!strings.Contains(msg, "chmod 600 "+open) || !strings.Contains(msg, "mode 0644"))) {
			t.Errorf("%s: %q, want a warning %v saying the mode and chmod 600", c.name, msg, c.warn)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".pgpass"), []byte("*:*:*:ql_runtime:pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, ".pgpass"), 0o640); err != nil {
		t.Fatal(err)
	}
	if msg := PassfileExposed("postgres://ql_runtime@db.example/ql", env("HOME", dir)); !strings.Contains(msg, filepath.Join(dir, ".pgpass")) {
		t.Errorf("~/.pgpass at 0640: %q, want it named", msg)
	}
}
