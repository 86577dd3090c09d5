package singlecli

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// A data directory a newer build migrated conflicts with what exists: every
// command refuses it with exit 4, as the exit-code table says of "a
// database of a newer build" and as the cluster's commands and replicas
// do, and changes nothing. The server refusing it at start says so as its
// last log line, in its format and with a code, like every other line.
func TestADatabaseOfANewerBuildExitsFourOnEveryCommandAndTheServersLastLineIsALogLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, errOut := ql(t, "apply", "-f", writeFile(t, t.TempDir(), "defs.yaml", goodFile), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %s", code, errOut)
	}
	future := fmt.Sprintf("sqlite-%04d-future", len(sqlitestore.Stream())+1)
	db, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`INSERT INTO ql_schema_migrations VALUES (?, 'sha256:' || substr('1111111111111111111111111111111111111111111111111111111111111111', 1, 64), 0)`, future)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"runs", "list"}, {"triggers", "list"}, {"apply", "-f", writeFile(t, t.TempDir(), "defs.yaml", goodFile)}} {
		code, _, errOut := ql(t, append(args, "--data-dir", dir)...)
		if code != 4 || !strings.Contains(errOut, "this binary knows") {
			t.Errorf("ql %s: exit %d %q; want exit 4 saying the database is a newer build's", strings.Join(args, " "), code, errOut)
		}
	}
	code, _, errOut := ql(t, "serve", "--data-dir", dir, "--log-format", "json", "--http-addr", "127.0.0.1:0")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatalf("serve on a newer build's database: exit %d, its last line is no log line (%v):\n%s", code, err, errOut)
	}
	why, _ := last["error"].(string)
	if code != 4 || last["code"] != cli.CodeServeFailed || last["exit_code"] != float64(4) || !strings.Contains(why, "this binary knows") {
		t.Errorf("serve on a newer build's database: exit %d, last line %v; want exit 4 and a %s line saying why", code, last, cli.CodeServeFailed)
	}
}
