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
// the host comes from $PGHOST under a URL that names none, and when the
// connection string is keyword/value settings rather than a URL.
func TestTheDBAndWorkersCommandsWarnOfADatabaseOnAnotherHostReachedWithoutVerifyingIt(t *testing.T) {
	const warning = "warning: the database URL reaches db.invalid with sslmode=require, which does not verify the server"
	remote := "postgres://ql@db.invalid:5432/ql?sslmode=require&connect_timeout=1"
	keywordValue := "host=db.invalid port=5432 user=ql dbname=ql sslmode=require connect_timeout=1"
	for _, c := range []struct {
		name, pghost string
		run          func() string
	}{
		{"db check", "", func() string { out, _ := run(t, map[string]string{EnvRuntimeURL: remote}, "check"); return out }},
		{"db roles", "", func() string { out, _ := run(t, map[string]string{EnvSuperuserURL: remote}, "roles"); return out }},
		{"db migrate", "", func() string { out, _ := run(t, map[string]string{EnvMigrationURL: remote}, "migrate"); return out }},
		{"workers list", "", func() string {
			_, errOut, _ := workers(t, map[string]string{EnvAdminURL: remote}, "list")
			return errOut
		}},
		{"db check, keyword/value", "", func() string { out, _ := run(t, map[string]string{EnvRuntimeURL: keywordValue}, "check"); return out }},
		{"workers list, keyword/value", "", func() string {
			_, errOut, _ := workers(t, map[string]string{EnvAdminURL: keywordValue}, "list")
			return errOut
		}},
		{"db check, host from PGHOST", "db.invalid", func() string {
			out, _ := run(t, map[string]string{EnvURL: "postgres:///ql?sslmode=require&connect_timeout=1"}, "check")
			return out
		}},
	} {
		t.Setenv("PGHOST", c.pghost)
		if out := c.run(); !strings.Contains(out, "ql: "+warning) {
			t.Errorf("%s: %q, want the weak-TLS warning on stderr", c.name, out)
		}
	}
}

// A password file others may read is warned about by the db and workers
// commands too, before they connect, given a URL or keyword/value
// settings.
func TestTheDBCommandsWarnOfAPasswordFileOthersMayRead(t *testing.T) {
	passfile := filepath.Join(t.TempDir(), "pgpass")
	if err := os.WriteFile(passfile, []byte("*:*:*:ql:pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(passfile, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGPASSWORD", "")
	t.Setenv("PGPASSFILE", passfile)
	for _, url := range []string{"postgres://ql@127.0.0.1:1/ql?sslmode=disable&connect_timeout=1", "host=127.0.0.1 port=1 user=ql dbname=ql sslmode=disable connect_timeout=1"} {
		out, _ := run(t, map[string]string{EnvRuntimeURL: url}, "check")
		if !strings.Contains(out, "ql: warning: the password file "+passfile+" may be read by group or others") || !strings.Contains(out, "chmod 600") {
			t.Errorf("db check with a 0644 password file (%s): %q, want the warning", url, out)
		}
		_, errOut, _ := workers(t, map[string]string{EnvAdminURL: url}, "list")
		if !strings.Contains(errOut, "chmod 600 "+passfile) {
			t.Errorf("workers list with a 0644 password file (%s): %q, want the warning", url, errOut)
		}
	}
}

// `ql db check` given several servers without target_session_attrs
// read-write says to add it before it checks one of them: the check
// inspects one connection, and the pool's others may reach another server.
func TestDBCheckWarnsOfSeveralServersWithoutKeepingTheWritableOne(t *testing.T) {
	t.Setenv("PGTARGETSESSIONATTRS", "")
	for _, c := range []struct {
		url  string
		warn bool
	}{
		{"postgres://ql@127.0.0.1:1,127.0.0.2:1/ql?sslmode=disable&connect_timeout=1", true},
		{"host=127.0.0.1,127.0.0.2 port=1 user=ql dbname=ql sslmode=disable connect_timeout=1", true},
		{"postgres://ql@127.0.0.1:1,127.0.0.2:1/ql?sslmode=disable&connect_timeout=1&target_session_attrs=read-write", false},
	} {
		out, _ := run(t, map[string]string{EnvRuntimeURL: c.url}, "check")
		if got := strings.Contains(out, "ql: warning: the database URL lists several servers (127.0.0.1:1, 127.0.0.2:1) without target_session_attrs=read-write"); got != c.warn {
			t.Errorf("%s: %q, want the warning %v", c.url, out, c.warn)
		}
	}
}
