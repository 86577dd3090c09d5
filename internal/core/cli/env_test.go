package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// An old variable name is never silently ignored: alone, or beside the new
// name with another value, it is a usage error naming the new name; beside
// the same value it is harmless. The message never shows a value.
func TestGetenvRefusesARenamedVariable(t *testing.T) {
	t.Parallel()
	const secret = "postgres://u:s3cret@db/ql"
	for old, now := range RenamedEnv {
		env := func(vals map[string]string) func(string) string { return func(k string) string { return vals[k] } }
		_, err := Getenv(env(map[string]string{old: secret}), now)
		var ue *UsageError
		if !errors.As(err, &ue) || err.Error() != old+" was renamed "+now+"; set that instead" {
			t.Errorf("%s alone: %v; want a usage error naming %s", old, err, now)
		}
		if _, err := Getenv(env(map[string]string{old: secret, now: secret + "x"}), now); !errors.As(err, &ue) || !strings.Contains(err.Error(), "unset "+old) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s and %s differ: %v; want a usage error telling to unset %s", old, now, err, old)
		}
		if v, err := Getenv(env(map[string]string{old: secret, now: secret}), now); err != nil || v != secret {
			t.Errorf("%s and %s equal: %q %v; want the value", old, now, v, err)
		}
		if v, err := Getenv(env(nil), now); err != nil || v != "" {
			t.Errorf("neither set: %q %v", v, err)
		}
	}
}

// Not parallel: sets the environment. The old URL variable stops a command
// that reads the database with exit 2 and the new name, before any
// connection.
func TestOldURLVariableIsRefusedWithItsNewName(t *testing.T) {
	t.Setenv("QL_PG_URL", "postgres://ql_runtime@db/ql")
	t.Setenv("QL_DATABASE_URL", "")
	for _, args := range [][]string{{"runs", "list"}, {"triggers", "list", "--data-dir", t.TempDir()}, {"serve", "--profile", "cluster"}} {
		var reached []string
		code, _, stderr := qlWith(t, clusterBuild(&reached), args...)
		if code != 2 || !strings.Contains(stderr, "QL_PG_URL was renamed QL_DATABASE_URL; set that instead") || len(reached) != 0 {
			t.Errorf("%v: exit %d stderr %q reached %v; want exit 2 naming QL_DATABASE_URL", args, code, stderr, reached)
		}
	}
}

// Not parallel: sets the environment. Every retired variable stops every
// command of every binary with exit 2 and its new name before the command
// runs, also where the command reads no database URL or password at all
// (`ql serve` on a data directory, `ql runs list`, `ql version`, a
// one-command binary such as ql-worker): a name set is never ignored.
func TestEveryRetiredVariableStopsEveryCommandBeforeItRuns(t *testing.T) {
	for old, now := range RenamedEnv {
		t.Run(old, func(t *testing.T) {
			t.Setenv(old, "postgres://u@db/ql")
			t.Setenv(now, "")
			want := old + " was renamed " + now + "; set that instead"
			dir := t.TempDir()
			for _, args := range [][]string{{"serve", "--data-dir", dir}, {"runs", "list", "--data-dir", dir}, {"version"},
				{"serve", "--profile", "cluster"}, {"cron", "next", "* * * * *"}} {
				var reached []string
				code, _, stderr := qlWith(t, clusterBuild(&reached), args...)
				if code != 2 || !strings.Contains(stderr, want) || len(reached) != 0 {
					t.Errorf("%v: exit %d stderr %q reached %v; want exit 2 saying %q", args, code, stderr, reached, want)
				}
			}
			ran := false
			one := &cobra.Command{Use: "ql-worker", RunE: func(*cobra.Command, []string) error { ran = true; return nil }}
			var out, errOut bytes.Buffer
			if code := MainSingle(context.Background(), one, nil, &out, &errOut); code != 2 || ran || !strings.Contains(errOut.String(), want) {
				t.Errorf("a one-command binary: exit %d ran %v stderr %q; want exit 2 saying %q before it runs", code, ran, errOut.String(), want)
			}
		})
	}
}

// --db is gone; each form of it, on serve and in its --config file too, is
// refused with exit 2 and the flag to write instead, computed from the
// value, before anything is opened or served.
func TestRetiredDBFlagNamesItsReplacement(t *testing.T) {
	t.Parallel()
	const secret = "s3cret-pw"
	config := filepath.Join(t.TempDir(), "serve.yaml")
	if err := os.WriteFile(config, []byte("db: /srv/ql/qinglong.db\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"runs", "list", "--db", "./x/qinglong.db"}, "--db was replaced by --data-dir, the directory holding qinglong.db; write --data-dir x"},
		{[]string{"triggers", "list", "--db", "qinglong.db"}, "write --data-dir ."},
		{[]string{"runs", "show", "0190c2b4-0000-7000-8000-000000000000", "--db", "/srv/ql/state.sqlite"}, "rename /srv/ql/state.sqlite to /srv/ql/qinglong.db (with its -wal and -shm files, if any) and write --data-dir /srv/ql"},
		{[]string{"runs", "logs", "0190c2b4-0000-7000-8000-000000000000", "--db", "/srv/ql/qinglong.db"}, "write --data-dir /srv/ql"},
		{[]string{"apply", "-f", "nofile.yaml", "--db", "postgres://ql_admin:" + secret + "@db/ql"}, "give the PostgreSQL URL as --database-url, or in $QL_DATABASE_URL"},
		{[]string{"serve", "--db", "c1/qinglong.db"}, "--db was replaced by --data-dir, the directory holding qinglong.db; write --data-dir c1"},
		{[]string{"serve", "--profile", "cluster", "--db", "postgres://ql_runtime:" + secret + "@db/ql"}, "give the PostgreSQL URL as --database-url"},
		{[]string{"serve", "--profile", "cluster", "--config", config}, "--config " + config + ": --db was replaced by --data-dir, the directory holding qinglong.db; write --data-dir /srv/ql"},
	} {
		var reached []string
		code, out, stderr := qlWith(t, clusterBuild(&reached), c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || len(reached) != 0 {
			t.Errorf("%v: exit %d stderr %q reached %v; want exit 2 with %q", c.args, code, stderr, reached, c.want)
		}
		if strings.Contains(out+stderr, secret) {
			t.Errorf("%v: printed the password", c.args)
		}
	}
	for _, cmd := range []string{"runs list", "serve"} {
		if code, out, _ := qlWith(t, clusterBuild(new([]string)), append(strings.Fields(cmd), "--help")...); code != 0 || strings.Contains(out, "--db") {
			t.Errorf("%s --help: exit %d; the retired --db is shown:\n%s", cmd, code, out)
		}
	}
}

// Not parallel: sets the environment. --data-dir and --database-url (and
// their variables) choose the database of every read and apply command;
// the command line wins over the environment, and QL_DATABASE_URL over
// QL_DATA_DIR, as before.
func TestDataDirAndDatabaseURLChooseTheDatabase(t *testing.T) {
	dir, envDir := t.TempDir(), t.TempDir()
	// A directory the shell would split, as the command a refusal gives
	// has it quoted.
	spaced := filepath.Join(t.TempDir(), "my data")
	if err := os.Mkdir(spaced, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, envDir, spaced} {
		if err := os.WriteFile(filepath.Join(d, DefaultDBFile), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const url = "postgres://ql_runtime@localhost/ql"
	var opened []string
	record := func(_ context.Context, dsn string) (*Backend, error) {
		opened = append(opened, dsn)
		return nil, errors.New("not opening in this test")
	}
	full := Options{Binary: "ql", OpenPostgres: record, OpenSQLite: record, OpenSQLiteReadOnly: record}
	edge := Options{Binary: "ql-edge", OpenSQLite: record, OpenSQLiteReadOnly: record}
	for _, c := range []struct {
		name      string
		opts      Options
		env       map[string]string
		args      []string
		want      string // the database opened, or the usage error
		wantUsage bool
	}{
		{"flag", full, nil, []string{"--data-dir", dir}, filepath.Join(dir, DefaultDBFile), false},
		{"variable", full, map[string]string{"QL_DATA_DIR": envDir}, nil, filepath.Join(envDir, DefaultDBFile), false},
		{"flag over variable", full, map[string]string{"QL_DATA_DIR": envDir}, []string{"--data-dir", dir}, filepath.Join(dir, DefaultDBFile), false},
		{"data-dir flag over URL variable", full, map[string]string{"QL_DATABASE_URL": url}, []string{"--data-dir", dir}, filepath.Join(dir, DefaultDBFile), false},
		{"URL variable over data-dir variable", full, map[string]string{"QL_DATABASE_URL": url, "QL_DATA_DIR": envDir}, nil, url, false},
		{"URL flag over data-dir variable", full, map[string]string{"QL_DATA_DIR": envDir}, []string{"--database-url", url}, url, false},
		{"both flags", full, nil, []string{"--data-dir", dir, "--database-url", url}, "not both", true},
		{"the file as data dir", full, nil, []string{"--data-dir", filepath.Join(dir, DefaultDBFile)}, "is a file, not a directory; give the directory holding qinglong.db: --data-dir " + dir, true},
		{"the file as data dir in a directory with a space", full, nil, []string{"--data-dir", filepath.Join(spaced, DefaultDBFile)},
			"give the directory holding qinglong.db: --data-dir '" + spaced + "'\n", true},
		{"a URL as data dir", full, nil, []string{"--data-dir", url}, "give a PostgreSQL URL as --database-url", true},
		{"a path as URL", full, nil, []string{"--database-url", dir}, "must start with postgres://", true},
		{"edge with a URL variable", edge, map[string]string{"QL_DATABASE_URL": url}, nil, "no PostgreSQL support", true},
		{"edge flag over a URL variable", edge, map[string]string{"QL_DATABASE_URL": url}, []string{"--data-dir", dir}, filepath.Join(dir, DefaultDBFile), false},
		{"edge with a URL as data dir", edge, nil, []string{"--data-dir", url}, "this ql-edge build has no PostgreSQL support: use the full ql binary", true},
		{"edge has no URL flag", edge, nil, []string{"--database-url", url}, "this ql-edge build has no PostgreSQL support: use the full ql binary", true},
	} {
		for _, k := range []string{"QL_DATA_DIR", "QL_DATABASE_URL"} {
			t.Setenv(k, c.env[k])
		}
		opened = nil
		code, _, stderr := qlWith(t, c.opts, append([]string{"runs", "list"}, c.args...)...)
		switch {
		case c.wantUsage && (code != 2 || !strings.Contains(stderr, c.want) || len(opened) != 0):
			t.Errorf("%s: exit %d stderr %q opened %v; want a usage error with %q", c.name, code, stderr, opened, c.want)
		case !c.wantUsage && (code != 1 || len(opened) != 1 || opened[0] != c.want):
			t.Errorf("%s: exit %d stderr %q opened %v; want %s opened", c.name, code, stderr, opened, c.want)
		}
	}
}
