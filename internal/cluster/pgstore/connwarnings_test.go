package pgstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// noLibpqEnv clears the variables pgx reads, and points HOME at an empty
// directory, so only each case's own settings count.
func noLibpqEnv(t *testing.T) string {
	home := t.TempDir()
	for _, k := range []string{"PGHOST", "PGPORT", "PGSSLMODE", "PGPASSWORD", "PGPASSFILE", "PGSERVICE", "PGSERVICEFILE", "PGTARGETSESSIONATTRS", "PGSSLROOTCERT"} {
		t.Setenv(k, "")
	}
	t.Setenv("HOME", home)
	return home
}

func warningOf(raw string, kind ConnWarningKind) string {
	for _, w := range ConnWarnings(raw) {
		if w.Kind == kind {
			return w.Text
		}
	}
	return ""
}

// A database on another host reached without verifying its certificate
// draws a warning naming the host and the sslmode, whether the string is a
// URL or keyword/value settings; loopback hosts, sockets and verify-full
// do not.
func TestAnUnverifiedRemoteDatabaseIsWarnedAboutInEitherConnectionStringForm(t *testing.T) {
	noLibpqEnv(t)
	for _, c := range []struct {
		raw, sslmodeEnv, want string
	}{
		{"postgres://ql@db.example:5432/ql", "", "db.example with sslmode=prefer"},
		{"host=db.example user=ql dbname=ql", "", "db.example with sslmode=prefer"},
		{"postgres://ql@db.example/ql?sslmode=require", "", "sslmode=require"},
		{"host=db.example user=ql sslmode=require", "", "sslmode=require"},
		{"host=db.example user=ql sslmode='verify-ca'", "", "sslmode=verify-ca"},
		{"host=db.example user=ql sslmode=disable", "", "sslmode=disable"},
		{"host=db.example user=ql sslmode=allow", "", "sslmode=allow"},
		{"host=db.example user=ql", "require", "sslmode=require"},
		{"host=localhost,db2.example user=ql", "", "db2.example"},
		{"postgres://ql@db.example/ql?sslmode=verify-full", "", ""},
		{"host=db.example user=ql sslmode=verify-full", "", ""},
		{"host=db.example user=ql", "verify-full", ""},
		{"postgres://ql@localhost:5432/ql", "", ""},
		{"host=127.0.0.1 user=ql sslmode=disable", "", ""},
		{"host=::1 user=ql", "", ""},
		{"host=/var/run/postgresql user=ql", "", ""},
	} {
		t.Setenv("PGSSLMODE", c.sslmodeEnv)
		msg := warningOf(c.raw, WarnTLSUnverified)
		if (msg == "") != (c.want == "") || !strings.Contains(msg, c.want) || (msg != "" && !strings.Contains(msg, "use sslmode=verify-full")) {
			t.Errorf("%s (PGSSLMODE=%q): %q, want a warning containing %q (none when empty)", c.raw, c.sslmodeEnv, msg, c.want)
		}
	}
	t.Setenv("PGSSLMODE", "")
	t.Setenv("PGHOST", "db.example")
	if msg := warningOf("user=ql sslmode=require", WarnTLSUnverified); !strings.Contains(msg, "reaches db.example") {
		t.Errorf("keyword/value settings naming no host, $PGHOST=db.example: %q, want a warning naming db.example", msg)
	}
}

// A password read from a password file group or others may read is warned
// about, as psql refuses such a file, in either connection string form: the
// file is found as pgx finds it (the string's passfile, else $PGPASSFILE,
// else ~/.pgpass), and the string's or $PGPASSWORD's password draws none.
// No warning repeats a password.
func TestAPasswordFileOthersMayReadIsWarnedAboutInEitherConnectionStringForm(t *testing.T) {
	home := noLibpqEnv(t)
	const secret = "pw-4711-secret"
	open := filepath.Join(home, "open pgpass")
	private := filepath.Join(home, "private.pgpass")
	for path, mode := range map[string]os.FileMode{open: 0o644, private: 0o600, filepath.Join(home, ".pgpass"): 0o640} {
		if err := os.WriteFile(path, []byte("*:*:*:ql_runtime:"+secret+"\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, raw, pgpassfile, pgpassword, want string
	}{
		{"URL, $PGPASSFILE open", "postgres://ql_runtime@db.example/ql", open, "", open},
		{"keyword/value, $PGPASSFILE open", "host=db.example user=ql_runtime dbname=ql", open, "", open},
		{"URL's passfile open", "postgres://ql_runtime@db.example/ql?passfile=" + strings.ReplaceAll(open, " ", "%20"), private, "", open},
		{"keyword/value passfile open", "host=db.example user=ql_runtime passfile='" + open + "'", private, "", open},
		{"keyword/value, ~/.pgpass at 0640", "host=db.example user=ql_runtime", "", "", filepath.Join(home, ".pgpass")},
		{"$PGPASSFILE private", "host=db.example user=ql_runtime", private, "", ""},
		{"keyword/value password", "host=db.example user=ql_runtime password=" + secret, open, "", ""},
		{"URL password", "postgres://ql_runtime:" + secret + "@db.example/ql", open, "", ""},
		{"$PGPASSWORD", "host=db.example user=ql_runtime", open, secret, ""},
		{"another role's line only", "host=db.example user=ql_admin", open, "", ""},
	} {
		t.Setenv("PGPASSFILE", c.pgpassfile)
		t.Setenv("PGPASSWORD", c.pgpassword)
		msg := warningOf(c.raw, WarnPassfileExposed)
		if (msg == "") != (c.want == "") || (c.want != "" && !strings.Contains(msg, "chmod 600 "+c.want)) {
			t.Errorf("%s: %q, want a warning naming %q (none when empty)", c.name, msg, c.want)
		}
		for _, w := range ConnWarnings(c.raw) {
			if strings.Contains(w.Text, secret) {
				t.Errorf("%s: a warning repeats the password: %q", c.name, w.Text)
			}
		}
	}
}

// A string that lists several servers without target_session_attrs
// read-write or primary lets each pool connection reach any of them: it
// is warned about, saying to add it; with it, or with one server, it is
// not.
func TestSeveralServersWithoutKeepingTheWritableOneAreWarnedAbout(t *testing.T) {
	noLibpqEnv(t)
	const tls = "sslmode=verify-full"
	for _, c := range []struct {
		raw  string
		warn bool
	}{
		{"postgres://ql@db1.example:5432,db2.example:5432/ql?" + tls, true},
		{"host=db1.example,db2.example user=ql " + tls, true},
		{"postgres://ql@db1.example,db2.example/ql?target_session_attrs=any&" + tls, true},
		{"postgres://ql@db1.example,db2.example/ql?target_session_attrs=prefer-standby&" + tls, true},
		{"postgres://ql@db1.example,db2.example/ql?target_session_attrs=read-write&" + tls, false},
		{"host=db1.example,db2.example user=ql target_session_attrs=primary " + tls, false},
		{"postgres://ql@db1.example/ql?" + tls, false},
		{"host=db1.example user=ql", false},
	} {
		msg := warningOf(c.raw, WarnAnyHost)
		if (msg != "") != c.warn || (c.warn && (!strings.Contains(msg, "db1.example:5432, db2.example:5432") || !strings.Contains(msg, "add target_session_attrs=read-write"))) {
			t.Errorf("%s: %q, want a warning %v naming both servers and the setting to add", c.raw, msg, c.warn)
		}
	}
	t.Setenv("PGTARGETSESSIONATTRS", "read-write")
	if msg := warningOf("host=db1.example,db2.example user=ql", WarnAnyHost); msg != "" {
		t.Errorf("$PGTARGETSESSIONATTRS=read-write: %q, want none", msg)
	}
}
