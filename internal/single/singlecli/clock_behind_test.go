package singlecli

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/single/server"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// aheadDays is how far ahead of this host's clock the held database's
// newest recorded time lies.
const aheadDays = 30

// databaseAheadOfTheClock is a data directory holding goodFile's project
// and one queued Run, whose newest recorded time (the Run's admission)
// lies aheadDays ahead of this host's clock, as on a device that booted
// without a battery-backed clock: the clock reads that far behind it. It
// returns the directory and the Run's id.
func databaseAheadOfTheClock(t *testing.T) (dir, runID string) {
	t.Helper()
	dir = t.TempDir()
	if code, _, errOut := ql(t, "apply", "-f", writeFile(t, t.TempDir(), "defs.yaml", goodFile), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %s", code, errOut)
	}
	// The Run is admitted by a store whose clock reads aheadDays later,
	// as a clock that read right did before the device lost it.
	ahead := time.Now().Add(aheadDays * 24 * time.Hour).UnixMilli()
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, sqlitestore.Config{Path: filepath.Join(dir, "qinglong.db"), NowMs: func() int64 { return ahead }})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var triggerID string
	if err := openDB(t, dir).QueryRow(`SELECT id FROM triggers`).Scan(&triggerID); err != nil {
		t.Fatal(err)
	}
	res, err := st.TriggerRunNow(ctx, schedule.RunNowRequest{TriggerID: triggerID, RequestID: ids.New()})
	if err != nil {
		t.Fatal(err)
	}
	runID = res.RunID
	return dir, runID
}

func openDB(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// contents is every row of every table of the database in dir, as text:
// two equal contents mean nothing was written in between.
func contents(t *testing.T, dir string) string {
	t.Helper()
	db := openDB(t, dir)
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, table := range tables {
		rows, err := db.Query(`SELECT * FROM "` + table + `" ORDER BY rowid`)
		if err != nil {
			// A WITHOUT ROWID table is ordered by its key.
			rows, err = db.Query(`SELECT * FROM "` + table + `" ORDER BY 1`)
		}
		if err != nil {
			t.Fatalf("read %s: %v", table, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s %v\n", table, vals)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// heldWrites are the commands that write the embedded database itself,
// each with arguments that pass its own checks on databaseAheadOfTheClock
// (the secrets commands, which record their change in its audit trail,
// given the data directory's secrets file holding api_token).
var heldWrites = [][]string{
	{"apply", "-f", "DEFS"},
	{"triggers", "run", "demo/tick"},
	{"triggers", "backfill", "demo/tick", "--from", "2020-01-01T00:00:00Z", "--to", "2020-01-01T00:01:00Z"},
	{"triggers", "disable", "demo/tick"},
	{"triggers", "enable", "demo/tick"},
	{"triggers", "pause", "demo/tick"},
	{"triggers", "resume", "demo/tick"},
	{"projects", "pause", "demo"},
	{"projects", "resume", "demo"},
	{"runs", "rerun", "RUN"},
	{"notifications", "retry", "0193a8a0-0000-7000-8000-00000000abcd"},
	{"notifications", "test", "ops", "--project", "demo"},
	{"tokens", "create", "ci", "--scope", "read"},
	{"tokens", "revoke", "ci"},
	{"users", "create", "ops", "--password-stdin"},
	{"users", "disable", "ops"},
	{"users", "enable", "ops"},
	{"users", "delete", "ops"},
	{"users", "passwd", "ops"},
	{"users", "set-projects", "ops", "--project", "demo"},
	{"secrets", "set", "api_token"},
	{"secrets", "delete", "api_token"},
}

// TestWhileTheClockReadsBehindTheDatabaseCommandsWritingItAreRefusedAndReadsAnswered:
// on a database whose newest recorded time lies thirty days ahead of the
// clock, every command that writes it directly exits 1 with the reason
// clock_behind_database, saying how far behind the clock reads, to check
// NTP and the flag that writes all the same, and writes nothing, to the
// database or the secrets file; the commands that date nothing are
// answered (a cancel, below, too).
func TestWhileTheClockReadsBehindTheDatabaseCommandsWritingItAreRefusedAndReadsAnswered(t *testing.T) {
	t.Parallel()
	dir, runID := databaseAheadOfTheClock(t)
	defs := writeFile(t, t.TempDir(), "defs.yaml", strings.Replace(goodFile, "echo hello", "echo changed", 1))
	secrets := server.LayoutOfDB(filepath.Join(dir, "qinglong.db")).Secrets
	if _, err := (process.Secrets{Path: secrets}).Set("api_token", "the-old-value"); err != nil {
		t.Fatal(err)
	}
	secretsBefore, err := os.ReadFile(secrets)
	if err != nil {
		t.Fatal(err)
	}
	before := contents(t, dir)
	// The edge binary's writing opener, which makes a new file as an edge
	// server would: the edge binary refuses as ql does.
	edge := Options("ql-edge")
	edge.OpenSQLite = OpenEdgeSQLite
	for _, args := range heldWrites {
		args = append(append([]string{}, args...), "--data-dir", dir)
		for i, a := range args {
			switch a {
			case "DEFS":
				args[i] = defs
			case "RUN":
				args[i] = runID
			}
		}
		// A password on standard input, for `users create` and `users
		// passwd`; the other commands read none.
		var out, stderr bytes.Buffer
		code := cli.MainIn(context.Background(), edge, args, strings.NewReader("correct-horse-battery\n"), &out, &stderr)
		errOut := stderr.String()
		what := strings.Join(args[:2], " ")
		if code != 1 {
			t.Errorf("%s while the clock reads behind the database: exit %d %q; want exit 1", what, code, errOut)
			continue
		}
		for _, said := range []string{"nothing was written", fmt.Sprintf("clock reads %dd0h behind the newest time its database recorded", aheadDays), "check that NTP reaches a time server", "--clock-behind-ok"} {
			if !strings.Contains(errOut, said) {
				t.Errorf("%s: the refusal does not say %q: %q", what, said, errOut)
			}
		}
	}
	if after := contents(t, dir); after != before {
		t.Errorf("the refused commands wrote to the database:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if after, err := os.ReadFile(secrets); err != nil || !bytes.Equal(after, secretsBefore) {
		t.Errorf("the refused commands changed the secrets file (%v)", err)
	}

	// Reads, the credential lists, a retention pass (which ages rows by
	// the clock: one behind deletes less, never more), a check, a vacuum
	// and a backup date nothing, and are answered.
	for _, args := range [][]string{
		{"triggers", "list"},
		{"triggers", "show", "demo/tick"},
		{"runs", "list"},
		{"projects", "show", "demo"},
		{"export", "demo"},
		{"apply", "-f", writeFile(t, t.TempDir(), "defs.yaml", goodFile), "--dry-run"},
		{"tokens", "list"},
		{"users", "list"},
		{"retention", "run"},
		{"db", "check"},
		{"db", "vacuum"},
		{"backup", filepath.Join(t.TempDir(), "copy.db")},
	} {
		if code, _, errOut := ql(t, append(args, "--data-dir", dir)...); code != 0 {
			t.Errorf("%s while the clock reads behind the database: exit %d %s; want it answered", strings.Join(args, " "), code, errOut)
		}
	}

	code, _, errOut := ql(t, "apply", "-f", defs, "--data-dir", dir, "-o", "json")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	var e struct {
		Error struct {
			Code   string            `json:"code"`
			Reason string            `json:"reason"`
			Params map[string]string `json:"params"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &e); err != nil {
		t.Fatalf("apply -o json: exit %d, no JSON error line (%v): %s", code, err, errOut)
	}
	p := e.Error.Params
	if code != 1 || e.Error.Code != "unavailable" || e.Error.Reason != string(hold.RefusalClockBehindDatabase) || p["behind"] != fmt.Sprintf("%dd0h", aheadDays) || p["clock"] == "" || p["newest"] <= p["clock"] {
		t.Errorf("apply -o json: exit %d %+v; want exit 1, unavailable, reason %s with behind, clock and newest", code, e.Error, hold.RefusalClockBehindDatabase)
	}
}

// TestTheClockBehindOverrideWritesTheDatabase: given --clock-behind-ok, a
// command writes the database whose newest recorded time lies ahead of
// the clock, as it would with the clock right.
func TestTheClockBehindOverrideWritesTheDatabase(t *testing.T) {
	t.Parallel()
	dir, _ := databaseAheadOfTheClock(t)
	if code, _, errOut := ql(t, "triggers", "disable", "demo/tick", "--data-dir", dir, "--clock-behind-ok"); code != 0 {
		t.Fatalf("triggers disable --clock-behind-ok: exit %d %s", code, errOut)
	}
	var enabled int
	if err := openDB(t, dir).QueryRow(`SELECT count(*) FROM trigger_schedules WHERE enabled = 1`).Scan(&enabled); err != nil {
		t.Fatal(err)
	}
	if enabled != 0 {
		t.Errorf("triggers disable --clock-behind-ok left the trigger enabled")
	}
	defs := writeFile(t, t.TempDir(), "defs.yaml", strings.Replace(goodFile, "echo hello", "echo changed", 1))
	if code, out, errOut := ql(t, "apply", "-f", defs, "--data-dir", dir, "--clock-behind-ok"); code != 0 || !strings.Contains(out, "updated") {
		t.Errorf("apply --clock-behind-ok: exit %d %q %s; want the task updated", code, out, errOut)
	}
	var out, errOut bytes.Buffer
	code := cli.MainIn(context.Background(), Options("ql-edge"), []string{"secrets", "set", "api_token", "--data-dir", dir, "--clock-behind-ok"}, strings.NewReader("the-new-value\n"), &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), "secret api_token: created") {
		t.Errorf("secrets set --clock-behind-ok: exit %d %q %s; want the secret created", code, out.String(), errOut.String())
	}
}

// TestARunIsCancelledOnTheDeviceWhileTheClockReadsBehindTheDatabase: a
// person can stop a Run while the clock reads behind the database; the
// cancel is dated at the newest time the database recorded, never before
// it, by ql and ql-edge alike.
func TestARunIsCancelledOnTheDeviceWhileTheClockReadsBehindTheDatabase(t *testing.T) {
	t.Parallel()
	dir, runID := databaseAheadOfTheClock(t)
	db := openDB(t, dir)
	var newest int64
	if err := db.QueryRow(`SELECT max(created_at_ms) FROM run_events`).Scan(&newest); err != nil {
		t.Fatal(err)
	}
	edge := Options("ql-edge")
	edge.OpenSQLite = OpenEdgeSQLite
	var out, errOut bytes.Buffer
	if code := cli.Main(context.Background(), edge, []string{"runs", "cancel", runID, "--data-dir", dir}, &out, &errOut); code != 0 {
		t.Fatalf("runs cancel while the clock reads behind the database: exit %d %s; want the Run cancelled", code, errOut.String())
	}
	var state string
	var finished, cancelled int64
	if err := db.QueryRow(`SELECT r.state, r.finished_at_ms, e.created_at_ms FROM runs r JOIN run_events e ON e.run_id = r.id AND e.seq = r.last_event_seq
		WHERE r.id = ?`, runID).Scan(&state, &finished, &cancelled); err != nil {
		t.Fatal(err)
	}
	if state != "cancelled" || finished != newest || cancelled != newest {
		t.Errorf("the Run is %s, finished at %d, its last event at %d; want it cancelled at the newest recorded time %d", state, finished, cancelled, newest)
	}
}

// TestTheClockBehindOverrideIsRefusedWithAServersAPI: --clock-behind-ok
// given with --api-url is refused as a usage error (exit 2) saying the
// server holds for its own clock and how to take it as right: the flag
// would override nothing there.
//
// Not parallel: sets $QL_TOKEN, which --api-url needs first.
func TestTheClockBehindOverrideIsRefusedWithAServersAPI(t *testing.T) {
	t.Setenv("QL_TOKEN", "qlt_"+strings.Repeat("a", 43))
	code, _, errOut := ql(t, "triggers", "disable", "demo/tick", "--api-url", "http://127.0.0.1:1", "--clock-behind-ok")
	if code != 2 || !strings.Contains(errOut, "--clock-behind-ok is for a command writing an embedded database itself") || !strings.Contains(errOut, "--clock-wait 0") {
		t.Errorf("--clock-behind-ok with --api-url: exit %d %q; want exit 2 saying the server holds for its own clock", code, errOut)
	}
}
