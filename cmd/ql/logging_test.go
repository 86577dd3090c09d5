package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

type syncBuffer = syncbuf.Buffer

// runUntil runs ql with args until reached (what) holds of its stderr,
// then stops it as a signal does and returns its stderr; the command must
// exit 0.
func runUntil(t *testing.T, what string, reached func(stderr string) bool, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	exit := make(chan int, 1)
	go func() { exit <- cli.Main(ctx, options(), args, &out, &errOut) }()
	deadline := time.After(30 * time.Second)
	for !reached(errOut.String()) {
		select {
		case code := <-exit:
			t.Fatalf("ql %s exited %d before %s: %s", strings.Join(args, " "), code, what, errOut.String())
		case <-deadline:
			t.Fatalf("ql %s: no %s within 30s: %s", strings.Join(args, " "), what, errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	if code := <-exit; code != 0 {
		t.Fatalf("ql %s exited %d: %s", strings.Join(args, " "), code, errOut.String())
	}
	return errOut.String()
}

// Each profile of ql serve logs in the format --log-format names, not its
// default, and --log-level drops the lines below it: a standalone server
// told json writes JSON lines with their time, level, message and code;
// a replica told text and warn writes key=value lines of its failed
// activations only (nothing listens at its database address), none of
// its info lines.
func TestServeLogsInTheFormatAndFromTheLevelGivenOnEveryProfile(t *testing.T) {
	t.Parallel()
	t.Run("standalone", func(t *testing.T) {
		t.Parallel()
		stderr := runUntil(t, "serving line", func(s string) bool { return strings.Contains(s, `"msg":"serving"`) },
			"serve", "--data-dir", t.TempDir(), "--log-format", "json")
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		var rec map[string]any
		for _, line := range lines {
			rec = nil
			if err := json.Unmarshal([]byte(line), &rec); err != nil || rec["time"] == nil || rec["level"] == nil || rec["msg"] == nil {
				t.Fatalf("line %q (%v): want a JSON object with time, level and msg", line, err)
			}
		}
		if rec["code"] != "serve.stopped" || rec["level"] != "INFO" {
			t.Fatalf("last line %v: want the info line of code serve.stopped", rec)
		}
	})
	t.Run("cluster", func(t *testing.T) {
		t.Parallel()
		stderr := runUntil(t, "failed activation", func(s string) bool { return strings.Contains(s, "code=serve.activation_failed") },
			"serve", "--profile", "cluster", "--database-url", "postgres://ql_runtime@127.0.0.1:1/ql?sslmode=disable&connect_timeout=1",
			"--replica-id", "replica-log", "--http-addr", "127.0.0.1:0", "--worker-addr", "127.0.0.1:0", "--stop-timeout", "2s",
			"--log-format", "text", "--log-level", "warn")
		for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
			if !strings.HasPrefix(line, "time=") || !strings.Contains(line, " replica=replica-log") ||
				!strings.Contains(line, " level=WARN ") && !strings.Contains(line, " level=ERROR ") {
				t.Errorf("line %q: want a key=value line of the replica at warn or above", line)
			}
		}
	})
}

// A --log-level or --log-format ql does not know stops serve (either
// profile) and worker at once with exit 2, naming the flag and the values
// it accepts.
func TestServeAndWorkerRefuseAnUnknownLogLevelOrFormatNamingTheAcceptedValues(t *testing.T) {
	t.Parallel()
	cred := filepath.Join(t.TempDir(), "worker.cred")
	if err := os.WriteFile(cred, []byte("qlw_credential\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{
		{"serve", "--data-dir", t.TempDir()},
		{"serve", "--profile", "cluster", "--database-url", "postgres://ql_runtime@127.0.0.1:1/ql"},
		{"worker", "--server", "https://replica.invalid:8081", "--credential-file", cred, "--data-dir", t.TempDir()},
	} {
		for _, c := range []struct{ flag, value, want string }{
			{"--log-level", "verbose", `--log-level "verbose" is not a level; give one of debug, info, warn, error`},
			{"--log-format", "yaml", `--log-format "yaml" is not a log format; give text or json`},
		} {
			var out, errOut bytes.Buffer
			args := append(append([]string{}, cmd...), c.flag, c.value)
			if code := cli.Main(context.Background(), options(), args, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), c.want) {
				t.Errorf("ql %s: exit %d %q; want 2 with %q", strings.Join(args, " "), code, errOut.String(), c.want)
			}
		}
	}
}

// `ql worker` refuses a stop timeout outside 1s–24h as ql-worker does:
// exit 2, naming the flag, the value as written and the range.
func TestTheWorkerCommandRefusesAStopTimeoutOutsideItsRange(t *testing.T) {
	t.Parallel()
	cred := filepath.Join(t.TempDir(), "worker.cred")
	if err := os.WriteFile(cred, []byte("qlw_credential\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"100ms", "48h"} {
		// A value taken would start the worker: the deadline ends it.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var out, errOut bytes.Buffer
		args := []string{"worker", "--server", "http://127.0.0.1:1", "--credential-file", cred, "--data-dir", t.TempDir(), "--stop-timeout", v}
		code := cli.Main(ctx, options(), args, &out, &errOut)
		cancel()
		if want := "--stop-timeout " + v + " is outside 1s–24h"; code != 2 || !strings.Contains(errOut.String(), want) {
			t.Errorf("ql %s: exit %d %q; want 2 with %q", strings.Join(args, " "), code, errOut.String(), want)
		}
	}
}

// A replica whose database is on another host without a verified
// certificate says so in a line of its log format, with its code and its
// replica id, so a log shipper parsing JSON reads that warning too.
func TestAReplicaWarnsOfAnUnverifiedDatabaseInALineOfItsLogFormat(t *testing.T) {
	t.Parallel()
	const code = `"code":"serve.database_tls_unverified"`
	stderr := runUntil(t, "warning", func(s string) bool { return strings.Contains(s, code) },
		"serve", "--profile", "cluster", "--database-url", "postgres://ql_runtime@db.invalid/ql?sslmode=require&connect_timeout=1",
		"--replica-id", "replica-tls-warning", "--http-addr", "127.0.0.1:0", "--worker-addr", "127.0.0.1:0", "--stop-timeout", "2s")
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a line is not JSON (%v): %q", err, line)
		}
		if rec["code"] == "serve.database_tls_unverified" {
			if msg, _ := rec["msg"].(string); rec["level"] != "WARN" || rec["replica"] != "replica-tls-warning" || !strings.Contains(msg, "db.invalid with sslmode=require") {
				t.Fatalf("the warning %v: want level WARN, the replica id and the host", rec)
			}
		}
	}
}

// A replica given several servers without target_session_attrs read-write
// warns at start, in a line of its log format, that its pool's connections
// may reach another server than the one it checks, and says to add it.
func TestAReplicaWarnsAtStartOfSeveralServersWithoutKeepingTheWritableOne(t *testing.T) {
	t.Parallel()
	const code = "serve.database_any_host"
	stderr := runUntil(t, "warning", func(s string) bool { return strings.Contains(s, code) },
		"serve", "--profile", "cluster", "--database-url", "postgres://ql_runtime@127.0.0.1:1,127.0.0.2:1/ql?sslmode=disable&connect_timeout=1",
		"--replica-id", "replica-any-host", "--http-addr", "127.0.0.1:0", "--worker-addr", "127.0.0.1:0", "--stop-timeout", "2s")
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a line is not JSON (%v): %q", err, line)
		}
		if rec["code"] == code {
			if msg, _ := rec["msg"].(string); rec["level"] != "WARN" || !strings.Contains(msg, "add target_session_attrs=read-write") {
				t.Fatalf("the warning %v: want level WARN saying to add target_session_attrs=read-write", rec)
			}
			return
		}
	}
	t.Fatalf("no %s line: %s", code, stderr)
}

// A read command given a PostgreSQL URL (`ql runs list`) prints the same
// warnings before it connects, read as the driver reads the URL.
func TestAReadCommandWarnsOfAnUnverifiedDatabaseBeforeItConnects(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	code := cli.Main(t.Context(), options(), []string{"runs", "list", "--database-url", "postgres://ql_runtime@db.invalid/ql?sslmode=require&connect_timeout=1"}, &out, &errOut)
	if code == 0 || !strings.Contains(errOut.String(), "ql: warning: the database URL reaches db.invalid with sslmode=require") {
		t.Fatalf("runs list with sslmode=require: exit %d stderr %q; want the warning, then a failed connection", code, errOut.String())
	}
}
