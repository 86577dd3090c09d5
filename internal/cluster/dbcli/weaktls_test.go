package dbcli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every command given a database URL warns, before it connects, when the
// URL reaches another host without verifying the server: the db commands
// and the workers commands as `ql runs list` and a replica do, also when
// the host comes from $PGHOST under a URL that names none.
func TestTheDBAndWorkersCommandsWarnOfADatabaseOnAnotherHostReachedWithoutVerifyingIt(t *testing.T) {
	t.Parallel()
	const warning = "warning: the database URL reaches db.invalid with sslmode=require, which does not verify the server"
	remote := "postgres://ql@db.invalid:5432/ql?sslmode=require&connect_timeout=1"
	viaPGHOST := map[string]string{EnvURL: "postgres:///ql?sslmode=require&connect_timeout=1", "PGHOST": "db.invalid"}
	for _, c := range []struct {
		name string
		run  func() string
	}{
		{"db check", func() string { out, _ := run(t, map[string]string{EnvRuntimeURL: remote}, "check"); return out }},
		{"db roles", func() string { out, _ := run(t, map[string]string{EnvSuperuserURL: remote}, "roles"); return out }},
		{"db migrate", func() string { out, _ := run(t, map[string]string{EnvMigrationURL: remote}, "migrate"); return out }},
		{"workers list", func() string {
			_, errOut, _ := workers(t, map[string]string{EnvAdminURL: remote}, "list")
			return errOut
		}},
		{"db check, host from PGHOST", func() string { out, _ := run(t, viaPGHOST, "check"); return out }},
	} {
		if out := c.run(); !strings.Contains(out, "ql: "+warning) {
			t.Errorf("%s: %q, want the weak-TLS warning on stderr", c.name, out)
		}
	}
}

// A password file others may read is warned about by the db and workers
// commands too, before they connect.
func TestTheDBCommandsWarnOfAPasswordFileOthersMayRead(t *testing.T) {
	t.Parallel()
	passfile := filepath.Join(t.TempDir(), "pgpass")
	if err := os.WriteFile(passfile, []byte("*:*:*:ql:pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(passfile, 0o644); err != nil {
		t.Fatal(err)
	}
	url := "postgres://ql@127.0.0.1:1/ql?sslmode=disable&connect_timeout=1"
	out, _ := run(t, map[string]string{EnvRuntimeURL: url, "PGPASSFILE": passfile}, "check")
	if !strings.Contains(out, "ql: warning: the password file "+passfile+" may be read by group or others") || !strings.Contains(out, "chmod 600") {
		t.Errorf("db check with a 0644 password file: %q, want the warning", out)
	}
	_, errOut, _ := workers(t, map[string]string{EnvAdminURL: url, "PGPASSFILE": passfile}, "list")
	if !strings.Contains(errOut, "chmod 600 "+passfile) {
		t.Errorf("workers list with a 0644 password file: %q, want the warning", errOut)
	}
}
