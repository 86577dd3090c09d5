package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/cli"
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
	// "ql" starting a command: in a `hint`, an example line, or prose.
	otherBinary := regexp.MustCompile("(^|[\\s`'\"(])ql[\\s`]")
	helps := 0
	walk(cli.NewRoot(options()), func(c *cobra.Command) {
		args := append(strings.Fields(c.CommandPath())[1:], "--help")
		code, out, _ := qlEdge(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		helps++
		for _, word := range []string{"cluster", "postgres", "pg_dump", "database-url", "replica", "worker", "role's url", "database role",
			"maintenance role", "role-prefix", "--lease", "commit-parallel", "QL_DATABASE"} {
			if strings.Contains(strings.ToLower(out), strings.ToLower(word)) {
				t.Errorf("ql-edge %s mentions %q:\n%s", strings.Join(args, " "), word, out)
			}
		}
		for _, line := range strings.Split(out, "\n") {
			if otherBinary.MatchString(line) {
				t.Errorf("ql-edge %s names ql in %q", strings.Join(args, " "), line)
			}
		}
	})
	if helps < 40 {
		t.Fatalf("read %d helps; the walk missed commands", helps)
	}
	// The single-node HTTP server serves the API and the health probes.
	if _, out, _ := qlEdge(t, "serve", "--help"); !strings.Contains(out, "/api/v1") || !strings.Contains(out, "/livez and /readyz") {
		t.Errorf("serve --help promises what the edge HTTP server does not serve:\n%s", out)
	}
	if code, _, stderr := qlEdge(t, "serve", "--database-url", "postgres://db/ql"); code != 2 || !strings.Contains(stderr, "unknown flag") {
		t.Fatalf("serve --database-url: exit %d %q; want a usage error", code, stderr)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
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
		{[]string{"runs", "show", "0190a4f2-0000-7000-8000-000000000000"}, "list runs with `ql-edge runs list`"},
		{[]string{"triggers", "run", "nope"}, "`ql-edge triggers list` shows the triggers"},
		{[]string{"notifications", "retry", "0190a4f2-0000-7000-8000-000000000000"}, "`ql-edge notifications list` shows them"},
	} {
		code, _, stderr := qlEdge(t, append(c.args, "--data-dir", dir)...)
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("ql-edge %s: exit %d %q; want 1 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
	code, _, stderr := qlEdge(t, "runs", "list", "--data-dir", t.TempDir())
	if want := "start with `ql-edge serve` or `ql-edge apply -f FILE` there"; code != 1 || !strings.Contains(stderr, want) {
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

// The line ql-edge serve logs when a run finishes says how to read its
// output with ql-edge.
func TestTheRunFinishedLineOfQlEdgeServeNamesQlEdge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, stderr := qlEdge(t, "apply", "-f", writeDefs(t), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- cli.Main(ctx, options(), []string{"serve", "--data-dir", dir, "--cadence", "250ms"}, &out, &errOut)
	}()
	deadline := time.After(30 * time.Second)
	for !strings.Contains(errOut.String(), "run finished") {
		select {
		case code := <-exit:
			t.Fatalf("serve exited %d: %s", code, errOut.String())
		case <-deadline:
			t.Fatalf("no run finished within 30s: %s", errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	if code := <-exit; code != 0 {
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "read its output with `ql-edge runs logs ") {
		t.Fatalf("the run finished line does not name ql-edge:\n%s", errOut.String())
	}
}
