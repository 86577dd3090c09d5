package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/freeport"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

func walk(c *cobra.Command, visit func(*cobra.Command)) {
	visit(c)
	for _, sub := range c.Commands() {
		walk(sub, visit)
	}
}

func qlEdge(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Main(context.Background(), options(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// The edge binary's help shows only what it can do, and names itself for
// every command to run: no cluster profile, database roles, workers, flags,
// examples or PostgreSQL URLs, and no ql command a router does not have.
func TestEdgeHelpShowsNothingOfTheCluster(t *testing.T) {
	t.Parallel()
	helps := 0
	walk(cli.NewRoot(options()), func(c *cobra.Command) {
		args := append(strings.Fields(c.CommandPath())[1:], "--help")
		code, out, _ := qlEdge(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		helps++
		showsNothingOfTheCluster(t, args, out, clusterWords)
	})
	if helps < 40 {
		t.Fatalf("read %d helps; the walk missed commands", helps)
	}
	// The single-node HTTP server serves the API and the health probes.
	if _, out, _ := qlEdge(t, "serve", "--help"); !strings.Contains(out, "/api/v1") || !strings.Contains(out, "/livez and /readyz") {
		t.Errorf("serve --help promises what the edge HTTP server does not serve:\n%s", out)
	}
	if code, _, stderr := qlEdge(t, "serve", "--database-url", "postgres://db/ql"); code != 2 || !strings.Contains(stderr, "has no PostgreSQL support") {
		t.Fatalf("serve --database-url: exit %d %q; want a usage error saying the build has no PostgreSQL", code, stderr)
	}
}

type syncBuffer = syncbuf.Buffer

// clusterWords are what ql-edge, which has no cluster, never says.
var clusterWords = []string{"cluster", "postgres", "pg_dump", "database-url", "replica", "worker", "role's url", "database role",
	"maintenance role", "role-prefix", "--lease", "commit-parallel", "QL_DATABASE"}

// otherBinary is "ql" starting a command: in a `hint`, an example line,
// or prose.
var otherBinary = regexp.MustCompile("(^|[\\s`'\"(])ql[\\s`]")

// showsNothingOfTheCluster fails t when out, what `ql-edge args` printed,
// holds one of words or names ql for a command to run; a pointer at the
// full ql binary, for what only it has, is no command, in English or in
// Chinese.
func showsNothingOfTheCluster(t *testing.T, args []string, out string, words []string) {
	t.Helper()
	out = strings.ReplaceAll(strings.ReplaceAll(out, "the full ql binary", ""), "完整版的 ql 程序", "")
	for _, word := range words {
		if strings.Contains(strings.ToLower(out), strings.ToLower(word)) {
			t.Errorf("ql-edge %s mentions %q:\n%s", strings.Join(args, " "), word, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if otherBinary.MatchString(line) {
			t.Errorf("ql-edge %s names ql in %q", strings.Join(args, " "), line)
		}
	}
}

// What ql-edge prints besides its help — the notes of an apply, and the
// refusals of a PostgreSQL URL or setting it cannot use — names no
// cluster, replica, worker or ql command it does not have: a note says
// what this single-node server does, and a refusal of PostgreSQL points
// at the full ql binary, never at a flag or variable ql-edge lacks.
func TestWhatQlEdgePrintsNamesNoClusterReplicaWorkerOrQlCommand(t *testing.T) {
	dir := t.TempDir()
	defs := filepath.Join(t.TempDir(), "defs.yaml")
	if err := os.WriteFile(defs, []byte("project: demo\ntasks:\n  - name: hello\n    script: echo hello\n"+
		"    retry: {maxAttempts: 3, backoff: 10s, on: [lost]}\n    placement: {labels: {region: eu}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Refusals of a PostgreSQL database the user gave may say that ql-edge
	// has no PostgreSQL support; nothing else of the cluster.
	givenPostgres := slices.DeleteFunc(slices.Clone(clusterWords), func(w string) bool { return w == "postgres" })
	for _, c := range []struct {
		args  []string
		words []string
		code  int
		want  string
	}{
		{[]string{"apply", "-f", defs, "--data-dir", dir, "--dry-run"}, clusterWords, 0, "note: placement is stored but not acted on"},
		{[]string{"apply", "-f", defs, "--data-dir", dir}, clusterWords, 0, "note: placement is stored but not acted on"},
		{[]string{"runs", "list", "--db", "postgres://db/ql"}, givenPostgres, 2, "use the full ql binary for that database, or --data-dir DIR"},
		{[]string{"runs", "list", "--data-dir", "postgres://db/ql"}, givenPostgres, 2, "use the full ql binary for that database"},
		{[]string{"runs", "list", "--database-url", "postgres://db/ql"}, givenPostgres, 2, "use the full ql binary for that database, or --data-dir DIR"},
		{[]string{"serve", "--database-url", "postgres://db/ql"}, givenPostgres, 2, "use the full ql binary for that database, or --data-dir DIR"},
		{[]string{"runs", "list", "--data-dir", dir, "--api-url", "http://127.0.0.1:1"}, clusterWords, 2, "give --api-url (a server's API) or --data-dir (the database), not both"},
	} {
		code, out, stderr := qlEdge(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("ql-edge %s: exit %d %q; want %d and %q", strings.Join(c.args, " "), code, stderr, c.code, c.want)
		}
		// The test's name, in its temporary paths, is no output's.
		printed := strings.NewReplacer(dir, "DIR", defs, "FILE").Replace(out + stderr)
		showsNothingOfTheCluster(t, c.args, printed, c.words)
	}
	// A database's admin URL set, and no embedded database where an apply
	// would create one.
	t.Chdir(t.TempDir())
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_DATABASE_URL", "")
	t.Setenv("QL_DATABASE_ADMIN_URL", "postgres://ql_admin@db/ql")
	args := []string{"apply", "-f", defs}
	if code, out, stderr := qlEdge(t, args...); code != 2 || !strings.Contains(stderr, "use the full ql binary for that database") {
		t.Errorf("ql-edge apply with $QL_DATABASE_ADMIN_URL: exit %d %q; want 2, pointing at the full ql binary", code, stderr)
	} else {
		printed := strings.ReplaceAll(out+stderr, defs, "FILE")
		showsNothingOfTheCluster(t, args, printed, slices.DeleteFunc(slices.Clone(givenPostgres), func(w string) bool { return w == "QL_DATABASE" }))
	}
}

// `ql-edge serve` without --profile serves the edge profile.
func TestEdgeServesTheEdgeProfileByDefault(t *testing.T) {
	t.Parallel()
	if code, out, _ := qlEdge(t, "serve", "--help"); code != 0 || !strings.Contains(out, `(default "edge")`) {
		t.Fatalf("serve --help: exit %d; want the edge profile as default:\n%s", code, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	exit := make(chan int, 1)
	go func() { exit <- cli.Main(ctx, options(), []string{"serve", "--data-dir", t.TempDir()}, &out, &errOut) }()
	deadline := time.After(30 * time.Second)
	for !strings.Contains(errOut.String(), "msg=serving") {
		select {
		case code := <-exit:
			t.Fatalf("serve exited %d: %s", code, errOut.String())
		case <-deadline:
			t.Fatalf("serve did not start within 30s: %s", errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	if code := <-exit; code != 0 {
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "profile=edge") || !strings.Contains(errOut.String(), "page=4") {
		t.Fatalf("serve did not run the edge profile:\n%s", errOut.String())
	}
}

// writeDefs writes a definitions file of one trigger firing every second
// and returns its path.
func writeDefs(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "defs.yaml")
	defs := "project: demo\ntasks:\n  - name: hello\n    script: echo hello\ntriggers:\n" +
		"  - name: every-second\n    task: hello\n    cron: \"* * * * * *\"\n    timezone: UTC\n"
	if err := os.WriteFile(path, []byte(defs), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// An error hint printed by ql-edge names ql-edge for the command to run,
// also when the store, which the full binary shares, built the message.
func TestAnErrorHintPrintedByQlEdgeNamesQlEdge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, stderr := qlEdge(t, "apply", "-f", writeDefs(t), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		// Each carries the --data-dir given, so it works pasted as it is.
		{[]string{"runs", "show", "0190a4f2-0000-7000-8000-000000000000"}, "list runs with `ql-edge runs list --data-dir " + dir + "`"},
		{[]string{"triggers", "run", "nope"}, "`ql-edge triggers list --data-dir " + dir + "` shows the triggers"},
		{[]string{"notifications", "retry", "0190a4f2-0000-7000-8000-000000000000"}, "`ql-edge notifications list --data-dir " + dir + "` shows those kept"},
	} {
		code, _, stderr := qlEdge(t, append(c.args, "--data-dir", dir)...)
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("ql-edge %s: exit %d %q; want 1 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
	none := t.TempDir()
	code, _, stderr := qlEdge(t, "runs", "list", "--data-dir", none)
	if want := "start with `ql-edge serve --data-dir " + none + "` or `ql-edge apply -f FILE --data-dir " + none + "` there"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("runs list without a database: exit %d %q; want 1 and %q", code, stderr, want)
	}
}

// What ql-edge prints when a command succeeded names ql-edge for the next
// command to run.
func TestTheNextStepQlEdgePrintsNamesQlEdge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, stderr := qlEdge(t, "apply", "-f", writeDefs(t), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	run := func(want string, args ...string) string {
		t.Helper()
		code, out, stderr := qlEdge(t, append(args, "--data-dir", dir)...)
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("ql-edge %s: exit %d %q %q; want 0 and %q", strings.Join(args, " "), code, out, stderr, want)
		}
		return out
	}
	out := run("`ql-edge runs show ", "triggers", "run", "every-second")
	id := regexp.MustCompile(`run (\S+) queued`).FindStringSubmatch(out)
	if id == nil {
		t.Fatalf("triggers run printed no run id: %q", out)
	}
	run("cancelled", "runs", "cancel", id[1])
	run("`ql-edge runs show ", "runs", "rerun", id[1])
	run("a `ql-edge apply` of a file", "triggers", "disable", "every-second")
}

// serveUntil runs `ql-edge serve` with args until reached (what) holds of
// its stderr, then stops it and returns its stderr; serve must exit 0.
func serveUntil(t *testing.T, what string, reached func(stderr string) bool, args ...string) string {
	t.Helper()
	return serveWith(t, options(), what, reached, args...)
}

// serveWith is serveUntil for the binary of opts.
func serveWith(t *testing.T, opts cli.Options, what string, reached func(stderr string) bool, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	exit := make(chan int, 1)
	go func() { exit <- cli.Main(ctx, opts, append([]string{"serve"}, args...), &out, &errOut) }()
	deadline := time.After(30 * time.Second)
	for !reached(errOut.String()) {
		select {
		case code := <-exit:
			t.Fatalf("serve exited %d before %s: %s", code, what, errOut.String())
		case <-deadline:
			t.Fatalf("no %s within 30s: %s", what, errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	if code := <-exit; code != 0 {
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
	return errOut.String()
}

// --log-format json makes every line a JSON object with its time, level
// and message (and its code where it has one), and --log-level warn drops
// every info line: the start and the stop are not logged, the warning
// about a data directory others can write is.
func TestServeLogsJSONLinesFromTheLevelGiven(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o775); err != nil {
		t.Fatal(err)
	}
	addr := freeport.Addr(t)
	// Nothing at info says the server has started; its /readyz does.
	ready := func(string) bool {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	stderr := serveUntil(t, "ready /readyz", ready, "--data-dir", dir, "--http-addr", addr, "--log-format", "json", "--log-level", "warn")
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for _, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a line is not JSON (%v): %q", err, line)
		}
		if rec["time"] == nil || rec["msg"] == nil || rec["level"] != "WARN" && rec["level"] != "ERROR" {
			t.Errorf("line %q: want time, msg and a level of warn or above", line)
		}
	}
	var warning map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &warning); err != nil || warning["code"] != "data_dir_shared" || warning["dir"] != dir {
		t.Fatalf("first line %q: want the data_dir_shared warning naming %s", lines[0], dir)
	}
}

// --log-level debug shows what is logged at debug: the scheduler's rounds
// that found nothing to do.
func TestServeAtLogLevelDebugLogsTheRoundsThatFoundNothing(t *testing.T) {
	t.Parallel()
	const round = `level=DEBUG msg="scheduler round" code=scheduler.round taken=0`
	logged := func(stderr string) bool {
		return strings.Contains(stderr, "msg=serving") && strings.Contains(stderr, round)
	}
	serveUntil(t, "start and empty round logged", logged, "--data-dir", t.TempDir(), "--cadence", "250ms", "--log-level", "debug")
}

// A --log-level or --log-format serve does not know stops it at once with
// exit 2, naming the flag and the values it accepts, before the database
// is created.
func TestServeRefusesAnUnknownLogLevelOrFormatNamingTheAcceptedValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ flag, value, want string }{
		{"--log-level", "verbose", `--log-level "verbose" is not a level; give one of debug, info, warn, error`},
		{"--log-format", "yaml", `--log-format "yaml" is not a log format; give text or json`},
	} {
		code, _, stderr := qlEdge(t, "serve", "--data-dir", dir, c.flag, c.value)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("serve %s %s: exit %d %q; want 2 with %q", c.flag, c.value, code, stderr, c.want)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Fatalf("the refused serve left %v in its data directory (%v)", entries, err)
	}
}

// The line ql-edge serve logs when a run finishes says how to read its
// output with ql-edge.
func TestTheRunFinishedLineOfQlEdgeServeNamesQlEdge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, stderr := qlEdge(t, "apply", "-f", writeDefs(t), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	finished := func(stderr string) bool { return strings.Contains(stderr, "run finished") }
	if stderr := serveUntil(t, "run finished", finished, "--data-dir", dir, "--cadence", "250ms"); !strings.Contains(stderr, "read its output with `ql-edge runs logs ") {
		t.Fatalf("the run finished line does not name ql-edge:\n%s", stderr)
	}
}

// `ql-edge serve` whose database file is moved away says so (/readyz 503
// database_moved, an error line with its code and remedy, nothing of the
// cluster), and is ready again by itself once the file is moved back.
func TestAnEdgeServerWhoseDatabaseIsMovedAwaySaysSoAndResumesWhenItIsBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, away := filepath.Join(dir, "qinglong.db"), filepath.Join(dir, "elsewhere.db")
	addr := freeport.Addr(t)
	readyz := func() (int, string) {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			return 0, ""
		}
		defer resp.Body.Close()
		var body struct{ Reason string }
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body.Reason
	}
	step := 0
	back := func(stderr string) bool {
		code, reason := readyz()
		switch {
		case step == 0 && code == http.StatusOK:
			if err := os.Rename(db, away); err != nil {
				t.Fatal(err)
			}
			step++
		case step == 1 && code == http.StatusServiceUnavailable && reason == "database_moved" && strings.Contains(stderr, "code=serve.database_moved"):
			if err := os.Rename(away, db); err != nil {
				t.Fatal(err)
			}
			step++
		case step == 2 && code == http.StatusOK && strings.Contains(stderr, "code=serve.database_back"):
			return true
		}
		return false
	}
	stderr := serveUntil(t, "the database moved away and back", back, "--data-dir", dir, "--http-addr", addr)
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, "code=serve.database_moved") {
			if !strings.Contains(line, "level=ERROR") || !strings.Contains(line, "put the file back at "+db) {
				t.Errorf("the moved line %q: want an error saying to put the file back at %s", line, db)
			}
			for _, word := range []string{"cluster", "replica", "PostgreSQL"} {
				if strings.Contains(line, word) {
					t.Errorf("the moved line mentions %q: %s", word, line)
				}
			}
		}
	}
}
