package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/leakcheck"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

func TestMain(m *testing.M) { leakcheck.Main(m) }

func qlWorker(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.MainSingle(context.Background(), command(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// The worker binary is the worker alone: its help names the worker's flags
// and nothing of servers, databases or the other commands.
func TestTheWorkerBinaryIsTheWorkerAlone(t *testing.T) {
	t.Parallel()
	code, out, _ := qlWorker(t, "--help")
	if code != 0 || !strings.Contains(out, "ql-worker [flags]") || !strings.Contains(out, "--credential-file") {
		t.Fatalf("exit %d, help:\n%s", code, out)
	}
	for _, word := range []string{"postgres", "database-url", "ql serve", "ql apply", "ql worker --"} {
		if strings.Contains(strings.ToLower(out), word) {
			t.Errorf("ql-worker --help mentions %q:\n%s", word, out)
		}
	}
	cred := filepath.Join(t.TempDir(), "worker.cred")
	if err := os.WriteFile(cred, []byte("qlw_credential\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := qlWorker(t, "--concurrency", "0", "--server", "https://r.example", "--credential-file", cred); code != 2 || !strings.Contains(stderr, "--concurrency 0 is outside 1–256") {
		t.Errorf("--concurrency 0: exit %d, %q; want a usage error naming the range", code, stderr)
	}
}

// A worker's drain lets running commands finish, so its stop timeout may
// be far longer than a replica's, but not without bound: outside 1s–24h
// the worker stops at once with exit 2, naming the flag, the value as the
// operator wrote it and the range.
func TestTheWorkerRefusesAStopTimeoutOutsideOneSecondToADayAsWritten(t *testing.T) {
	t.Parallel()
	cred := filepath.Join(t.TempDir(), "worker.cred")
	if err := os.WriteFile(cred, []byte("qlw_credential\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"0", "500ms", "-1s", "25h", "90000s", "1441m"} {
		// A value taken would start the worker: the deadline ends it.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var out, errOut bytes.Buffer
		code := cli.MainSingle(ctx, command(), []string{"--server", "http://127.0.0.1:1", "--credential-file", cred, "--data-dir", t.TempDir(), "--stop-timeout", v}, &out, &errOut)
		cancel()
		if want := "--stop-timeout " + v + " is outside 1s–24h"; code != 2 || !strings.Contains(errOut.String(), want) {
			t.Errorf("--stop-timeout %s: exit %d %q; want 2 with %q", v, code, errOut.String(), want)
		}
	}
	if _, out, _ := qlWorker(t, "--help"); !strings.Contains(out, "(1s–24h;") {
		t.Errorf("ql-worker --help does not state the stop timeout's range:\n%s", out)
	}
}

// Not parallel: sets the environment. Flags come from QL_<FLAG>, and a
// credential file that others can read is refused (exit 2, refused input) with the fix,
// before anything is sent.
func TestFlagsComeFromTheEnvironmentAndAnOpenCredentialFileIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "worker.cred")
	if err := os.WriteFile(path, []byte("qlw_secret-credential\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("QL_SERVER", "https://replica.invalid:8081")
	t.Setenv("QL_CREDENTIAL_FILE", path)
	t.Setenv("QL_DATA_DIR", t.TempDir())
	code, _, stderr := qlWorker(t)
	if code != 2 || !strings.Contains(stderr, "chmod 600 "+path) || strings.Contains(stderr, "qlw_secret") {
		t.Fatalf("exit %d, stderr %q; want exit 2 (refused input) saying chmod 600, never the credential", code, stderr)
	}
}

// --log-format and --log-level set the worker's lines: told text and warn,
// a worker that cannot reach its replica writes key=value lines of its
// failed registrations only, not its info line of starting.
func TestTheWorkerLogsInTheFormatAndFromTheLevelGiven(t *testing.T) {
	t.Parallel()
	cred := filepath.Join(t.TempDir(), "worker.cred")
	if err := os.WriteFile(cred, []byte("qlw_credential\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- cli.MainSingle(ctx, command(), []string{"--server", "http://127.0.0.1:1", "--credential-file", cred, "--data-dir", t.TempDir(),
			"--log-format", "text", "--log-level", "warn"}, &out, &errOut)
	}()
	deadline := time.After(30 * time.Second)
	for !strings.Contains(errOut.String(), "code=register_failed") {
		select {
		case code := <-exit:
			t.Fatalf("the worker exited %d before a failed registration: %s", code, errOut.String())
		case <-deadline:
			t.Fatalf("no failed registration within 30s: %s", errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	if code := <-exit; code != 0 {
		t.Fatalf("the worker exited %d: %s", code, errOut.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(errOut.String()), "\n") {
		if !strings.HasPrefix(line, "time=") || !strings.Contains(line, " level=WARN ") && !strings.Contains(line, " level=ERROR ") {
			t.Errorf("line %q: want a key=value line at warn or above", line)
		}
	}
}

// A --log-level or --log-format the worker does not know stops it at once
// with exit 2, naming the flag and the values it accepts.
func TestTheWorkerRefusesAnUnknownLogLevelOrFormatNamingTheAcceptedValues(t *testing.T) {
	t.Parallel()
	cred := filepath.Join(t.TempDir(), "worker.cred")
	if err := os.WriteFile(cred, []byte("qlw_credential\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ flag, value, want string }{
		{"--log-level", "verbose", `--log-level "verbose" is not a level; give one of debug, info, warn, error`},
		{"--log-format", "yaml", `--log-format "yaml" is not a log format; give text or json`},
	} {
		code, _, stderr := qlWorker(t, "--server", "https://replica.invalid:8081", "--credential-file", cred, "--data-dir", t.TempDir(), c.flag, c.value)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s %s: exit %d %q; want 2 with %q", c.flag, c.value, code, stderr, c.want)
		}
	}
}

type syncBuffer = syncbuf.Buffer

// The commands the worker's messages point at belong to the full ql binary
// (an admin's `ql workers create`), so they keep its name: the worker has
// no such command, and a hint naming ql-worker could not be followed.
func TestTheWorkersHintsNameTheFullQLBinary(t *testing.T) {
	t.Parallel()
	code, _, stderr := qlWorker(t, "--server", "https://replica.invalid:8081", "--data-dir", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "'ql workers create' printed") || strings.Contains(stderr, "ql-worker workers") {
		t.Fatalf("no --credential-file: exit %d, %q; want a usage error pointing at ql workers create", code, stderr)
	}
	cred := filepath.Join(t.TempDir(), "worker.cred")
	if err := os.WriteFile(cred, []byte("not a credential\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = qlWorker(t, "--server", "https://replica.invalid:8081", "--credential-file", cred, "--data-dir", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "as `ql workers create` prints it") || strings.Contains(stderr, "ql-worker workers") {
		t.Fatalf("a file holding no credential: exit %d, %q; want the fix naming ql workers create", code, stderr)
	}
}

// A --server the worker cannot use (another scheme, plain http off the
// loopback) is a usage error, exit 2 like every other bad flag, refused
// before anything is read or sent.
func TestABadServerURLIsAUsageError(t *testing.T) {
	t.Parallel()
	cred := filepath.Join(t.TempDir(), "worker.cred")
	if err := os.WriteFile(cred, []byte("qlw_credential\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for server, want := range map[string]string{
		"ftp://replica.example":  "want the worker ingress URL of a replica",
		"http://10.1.2.3:8081":   "plain http is accepted only to a loopback address",
		"https://a:8081,ftp://b": "want the worker ingress URL of a replica",
	} {
		code, _, stderr := qlWorker(t, "--server", server, "--credential-file", cred, "--data-dir", t.TempDir())
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("--server %s: exit %d, %q; want exit 2 saying %q", server, code, stderr, want)
		}
	}
}
