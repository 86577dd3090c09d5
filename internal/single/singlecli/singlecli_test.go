package singlecli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/single/server"
)

func ql(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Main(context.Background(), Options("ql-edge"), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const goodFile = `project: demo
tasks:
  - name: hello
    script: echo hello
triggers:
  - name: tick
    task: hello
    cron: "*/10 * * * * *"
    timezone: UTC
`

// Invalid definitions are reported with file:line and the field, and
// nothing reaches the database.
func TestInvalidDefinitionsAreExplainedAndWriteNothing(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		file string
		want []string
	}{
		"bad yaml":      {"project: demo\ntasks: [\n", []string{"defs.yaml:"}},
		"unknown field": {strings.Replace(goodFile, "    script: echo hello", "    script: echo hello\n    retries: 3", 1), []string{"defs.yaml:", "retries"}},
		"bad cron":      {strings.Replace(goodFile, `"*/10 * * * * *"`, `"61 * * * *"`, 1), []string{"defs.yaml:", "cron"}},
		"bad timezone":  {strings.Replace(goodFile, "timezone: UTC", "timezone: Mars/Olympus", 1), []string{"defs.yaml:", "Mars/Olympus"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := installedDir(t)
			db := filepath.Join(dir, "qinglong.db")
			code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "defs.yaml", c.file), "--data-dir", dir)
			if code == 0 {
				t.Fatalf("apply succeeded: %s", out)
			}
			for _, w := range c.want {
				if !strings.Contains(errOut, w) {
					t.Fatalf("error %q does not mention %q", errOut, w)
				}
			}
			b, err := server.OpenBackend(t.Context(), db, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if _, err := b.Store.ProjectByName(t.Context(), "demo"); !qlerror.Is(err, qlerror.NotFound) {
				t.Fatalf("an invalid file wrote project demo (%v)", err)
			}
		})
	}
}

func TestApplyIsDeclarativeAndTheReadCommandsSeeIt(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	file := writeFile(t, dir, "defs.yaml", goodFile)
	code, out, errOut := ql(t, "apply", "-f", file, "--data-dir", dir)
	if code != 0 || strings.Count(out, "created") != 3 {
		t.Fatalf("first apply: %d %q %q; want project, task and trigger created", code, out, errOut)
	}
	code, out, _ = ql(t, "apply", "-f", file, "--data-dir", dir)
	if code != 0 || out != "1 project, 1 task and 1 trigger unchanged\n" {
		t.Fatalf("second apply: %d %q; want everything unchanged", code, out)
	}
	code, out, errOut = ql(t, "triggers", "list", "--data-dir", dir, "--output", "json")
	if code != 0 || !strings.Contains(out, `"*/10 * * * * *"`) {
		t.Fatalf("triggers list: %d %q %q", code, out, errOut)
	}
	code, out, errOut = ql(t, "runs", "list", "--data-dir", dir)
	if code != 0 || !strings.HasPrefix(out, "ID") {
		t.Fatalf("runs list: %d %q %q", code, out, errOut)
	}
}

// In a build with the cluster profile the single-node profiles refuse its
// settings; a build without it does not even have them.
func TestClusterSettingsAreRefusedBySingleNodeProfiles(t *testing.T) {
	t.Parallel()
	full := Options("ql")
	full.Profiles[cli.ProfileCluster] = cli.Profile{Serve: func(context.Context, *cobra.Command, *cli.ServeFlags) error { return nil }}
	run := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		return cli.Main(context.Background(), full, args, &out, &errOut), errOut.String()
	}
	code, errOut := run("serve", "--profile", "edge", "--data-dir", t.TempDir(), "--lease", "10s")
	if code != 2 || !strings.Contains(errOut, "--lease: a cluster setting") || !strings.Contains(errOut, "--profile cluster") {
		t.Fatalf("serve --lease on edge: %d %q; want a usage error naming it and the cluster profile", code, errOut)
	}
	code, errOut = run("serve", "--data-dir", t.TempDir(), "--commit-parallel", "8")
	if code != 2 || !strings.Contains(errOut, "--commit-parallel") {
		t.Fatalf("serve --commit-parallel on standalone: %d %q; want a usage error naming it", code, errOut)
	}
	for _, flag := range [][]string{{"--worker-addr", "127.0.0.1:9000"}, {"--worker-tls-cert", "c.pem"}, {"--worker-tls-key", "k.pem"}, {"--run-lease", "10s"}} {
		code, errOut = run("serve", "--data-dir", t.TempDir(), flag[0], flag[1])
		if code != 2 || !strings.Contains(errOut, flag[0]+": a cluster setting") {
			t.Fatalf("serve %s on standalone: %d %q; want a usage error naming it", flag[0], code, errOut)
		}
	}
	code, _, errOut = ql(t, "serve", "--profile", "edge", "--data-dir", t.TempDir(), "--lease", "10s")
	if code != 2 || !strings.Contains(errOut, "unknown flag: --lease") {
		t.Fatalf("serve --lease in the edge build: %d %q; want a usage error", code, errOut)
	}
	code, _, errOut = ql(t, "serve", "--data-dir", t.TempDir(), "--page-size", "999")
	if code != 2 || !strings.Contains(errOut, "--page-size 999 is outside") {
		t.Fatalf("serve --page-size 999: %d %q; want a usage error naming the setting", code, errOut)
	}
}

// A cluster setting nobody typed — QL_DATABASE_URL left exported after
// setting up a cluster, a config file's line — is refused by where it came
// from, with the profile that takes it, never as flags the command line
// does not hold.
func TestAClusterSettingFromTheEnvironmentOrAFileIsRefusedByWhereItCameFrom(t *testing.T) {
	full := Options("ql")
	full.Profiles[cli.ProfileCluster] = cli.Profile{Serve: func(context.Context, *cobra.Command, *cli.ServeFlags) error { return nil }}
	run := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		return cli.Main(context.Background(), full, args, &out, &errOut), errOut.String()
	}
	config := filepath.Join(t.TempDir(), "ql.yaml")
	if err := os.WriteFile(config, []byte("run-lease: 10s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, errOut := run("serve", "--data-dir", t.TempDir(), "--config", config)
	if code != 2 || !strings.Contains(errOut, "ql: run-lease in --config "+config+": a cluster setting") || !strings.Contains(errOut, "--profile cluster") {
		t.Fatalf("serve with run-lease in its config file: %d %q; want it named by the file", code, errOut)
	}
	t.Setenv("QL_DATABASE_URL", "postgres://ql_runtime@db.invalid/qinglong")
	code, errOut = run("serve", "--data-dir", t.TempDir())
	if code != 2 || !strings.Contains(errOut, "ql: QL_DATABASE_URL in the environment: a cluster setting") || !strings.Contains(errOut, "--profile cluster") || strings.Contains(errOut, "db.invalid") {
		t.Fatalf("serve with QL_DATABASE_URL exported: %d %q; want the variable named, not its value", code, errOut)
	}
}

func TestServeRunAsIsCheckedBeforeAnythingRuns(t *testing.T) {
	t.Parallel()
	code, _, errOut := ql(t, "serve", "--data-dir", t.TempDir(), "--run-as", "bad name:x")
	if code != 2 || !strings.Contains(errOut, "--run-as.user") {
		t.Fatalf("serve --run-as 'bad name:x': %d %q; want a usage error naming --run-as", code, errOut)
	}
	code, _, errOut = ql(t, "serve", "--data-dir", t.TempDir(), "--run-as", "no-such-user-ql")
	if code != 1 || !strings.Contains(errOut, `code=serve.failed error="runAs user \"no-such-user-ql\" does not exist`) {
		t.Fatalf("serve --run-as no-such-user-ql: %d %q; want a start error naming the account", code, errOut)
	}
}

// A --trusted-proxies entry that is neither an address nor a CIDR prefix
// is a usage error naming the entry and showing the forms it takes.
func TestServeRefusesATrustedProxyThatIsNoAddress(t *testing.T) {
	t.Parallel()
	code, _, errOut := ql(t, "serve", "--data-dir", t.TempDir(), "--http-addr", "127.0.0.1:0", "--insecure-http", "--trusted-proxies", "10.0.0.7, proxy.internal")
	if code != 2 || !strings.Contains(errOut, `"proxy.internal"`) || !strings.Contains(errOut, "10.0.0.0/24") || !strings.Contains(errOut, "--help") {
		t.Fatalf("serve --trusted-proxies with a host name: %d %q; want a usage error naming it and showing an example", code, errOut)
	}
}

// An --allowed-hosts entry with a port could never match a request's Host,
// whose port is not compared: serve refuses it as a usage error naming the
// entry and the host name to write.
func TestServeRefusesAnAllowedHostWithAPort(t *testing.T) {
	t.Parallel()
	code, _, errOut := ql(t, "serve", "--data-dir", t.TempDir(), "--http-addr", "127.0.0.1:0", "--allowed-hosts", "myhost:18299,other")
	if code != 2 || !strings.Contains(errOut, `"myhost:18299"`) || !strings.Contains(errOut, "write myhost") || !strings.Contains(errOut, "--help") {
		t.Fatalf("serve --allowed-hosts myhost:18299,other: %d %q; want a usage error naming the entry and the host to write", code, errOut)
	}
}

// threeMistakes is goodFile with a trigger more and three mistakes that do
// not depend on each other: an expression (line 8, column 11), a task the
// file lacks (the trigger at line 10) and a zone (line 13, column 15).
const threeMistakes = `project: demo
tasks:
  - name: hello
    script: echo hello
triggers:
  - name: tick
    task: hello
    cron: "61 * * * *"
    timezone: UTC
  - name: tock
    task: nope
    cron: "0 * * * *"
    timezone: Mars/Olympus
`

// Every mistake of an invalid file is printed at once, each on its line of
// standard error as FILE:LINE:COLUMN: message (FILE:LINE: where the column
// is not known), in file order, then their count; apply and its dry run
// both exit 1, and nothing reaches the database.
func TestEveryMistakeOfAFileIsPrintedAtItsPlaceThenTheirCount(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	file := writeFile(t, dir, "defs.yaml", threeMistakes)
	want := []string{
		file + `:8:11: trigger "tick": trigger.cron: cron expression "61 * * * *": minute field "61"`,
		file + `:10: trigger "tock": trigger.task "nope" is not a task of this file`,
		file + `:13:15: trigger "tock": trigger.timezone: cron timezone "Mars/Olympus": unknown IANA timezone`,
		"ql-edge: " + file + ": 3 errors; nothing was applied",
	}
	for _, args := range [][]string{{"apply", "-f", file}, {"apply", "--dry-run", "-f", file}} {
		code, out, errOut := ql(t, append(args, "--data-dir", dir)...)
		lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
		if code != 2 || out != "" || len(lines) != len(want) {
			t.Fatalf("%s: exit %d, %q, %d lines of errors; want exit 2 (invalid input), nothing on standard output and %d lines:\n%s", args, code, out, len(lines), len(want), errOut)
		}
		for i, w := range want {
			if !strings.HasPrefix(lines[i], w) {
				t.Errorf("%s: line %d of the errors %q; want it to start %q", args, i+1, lines[i], w)
			}
		}
	}
	b, err := server.OpenBackend(t.Context(), filepath.Join(dir, "qinglong.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Store.ProjectByName(t.Context(), "demo"); !qlerror.Is(err, qlerror.NotFound) {
		t.Fatalf("an invalid file wrote project demo (%v)", err)
	}
}

// A serve setting out of its range is refused with the range spelt as the
// flags take durations (1h, not Go's 1h0m0s), as the help states it, and
// in the cluster profile's words: the flag as typed, its value, the range.
func TestServeStatesADurationsRangeAsItsFlagTakesIt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		flag, value, want string
	}{
		{"--cadence", "10ms", "--cadence 10ms is outside 250ms–1h"},
		{"--stop-timeout", "1m", "--stop-timeout 1m is outside 100ms–30s"},
		{"--misfire-grace", "25h", "--misfire-grace 25h is outside 0s–24h"},
		{"--notify-backoff", "2h", "--notify-backoff 2h is outside 100ms–1h"},
		{"--page-size", "100000", "--page-size 100000 is outside 1–"},
		{"--concurrency", "100000", "--concurrency 100000 is outside 1–"},
	} {
		code, _, errOut := ql(t, "serve", "--data-dir", t.TempDir(), c.flag, c.value)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "m0s") {
			t.Errorf("serve %s %s: exit %d, %q; want exit 2 saying %q", c.flag, c.value, code, errOut, c.want)
		}
	}
}

// A console address given to a single-node server that serves no console
// is refused before anything starts: its notifications would link to
// pages nothing serves. A malformed address is refused naming the flag.
func TestServeConsoleURLNeedsTheConsoleAndAnAddress(t *testing.T) {
	t.Parallel()
	code, _, errOut := ql(t, "serve", "--data-dir", t.TempDir(), "--console-url", "https://ql.example.com")
	if code != 2 || !strings.Contains(errOut, "--console-url") || !strings.Contains(errOut, "give --http-addr too") {
		t.Fatalf("serve --console-url without --http-addr: %d %q; want a usage error asking for --http-addr", code, errOut)
	}
	code, _, errOut = ql(t, "serve", "--data-dir", t.TempDir(), "--http-addr", "127.0.0.1:0", "--console-url", "ql.example.com")
	if code != 2 || !strings.Contains(errOut, `--console-url "ql.example.com" is not the console's address`) {
		t.Fatalf("serve --console-url ql.example.com: %d %q; want a usage error naming the flag", code, errOut)
	}
}
