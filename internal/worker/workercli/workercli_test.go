package workercli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/worker/journal"
)

// The worker's starting line names every replica --server gives (given
// twice, both, as `--server a,b` does: a plain string flag kept only the
// last one, so the worker never failed over to the first), the data
// directory absolute however it was given, and the --labels as sorted
// k=v pairs, "" when there are none (not null or map[]).
func TestTheStartingLineNamesBothServersTheAbsoluteDataDirAndTheLabels(t *testing.T) {
	t.Parallel()
	dir, cred, wd := credentialDir(t)
	for _, c := range []struct {
		name, labels, want string
	}{{"a", "zone=eu,arch=amd64", "arch=amd64,zone=eu"}, {"b", "", ""}} {
		t.Run("labels="+c.labels, func(t *testing.T) {
			t.Parallel()
			journalDir := filepath.Join(dir, "journal-"+c.name)
			// The directory as given relative to the working directory, as
			// an operator types it, without changing the test's.
			relative, err := filepath.Rel(wd, journalDir)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"--server", "http://127.0.0.1:1", "--server", "http://localhost:1", "--credential-file", cred,
				"--data-dir", relative, "--stop-timeout", "1s"}
			if c.labels != "" {
				args = append(args, "--labels", c.labels)
			}
			rec := startingLine(t, args)
			if want := "http://127.0.0.1:1,http://localhost:1"; rec.Server != want {
				t.Errorf("the worker started with servers %q, want %q", rec.Server, want)
			}
			if rec.DataDir != journalDir {
				t.Errorf("the worker given --data-dir %q started naming %q, want %q", relative, rec.DataDir, journalDir)
			}
			if want := strconv.Quote(c.want); string(rec.Labels) != want {
				t.Errorf("the worker given --labels %q started naming labels %s, want %s", c.labels, rec.Labels, want)
			}
		})
	}
}

// The worker's scripts folder is scripts in --data-dir, or the folder
// --scripts-dir names, absolute however it was given: made at start and
// named in the starting line.
func TestTheWorkerMakesAndNamesItsScriptsFolder(t *testing.T) {
	t.Parallel()
	dir, cred, wd := credentialDir(t)
	elsewhere := filepath.Join(dir, "elsewhere", "scripts")
	relative, err := filepath.Rel(wd, elsewhere)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, flag, want string }{
		{"default", "", filepath.Join(dir, "default", "scripts")},
		{"flag", relative, elsewhere},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"--server", "http://127.0.0.1:1", "--credential-file", cred, "--data-dir", filepath.Join(dir, c.name), "--stop-timeout", "1s"}
			if c.flag != "" {
				args = append(args, "--scripts-dir", c.flag)
			}
			if rec := startingLine(t, args); rec.ScriptsDir != c.want {
				t.Errorf("the worker started naming scripts_dir %q, want %q", rec.ScriptsDir, c.want)
			}
			if fi, err := os.Stat(c.want); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o755 {
				t.Errorf("the scripts folder %s: %v, %v; want a folder of mode 0755", c.want, fi, err)
			}
		})
	}
}

// startingRecord is what a test reads of the worker's starting line.
type startingRecord struct {
	Code       string `json:"code"`
	Server     string `json:"server"`
	DataDir    string `json:"data_dir"`
	ScriptsDir string `json:"scripts_dir"`
	// Labels is as the line has it: a string, or (wrongly) null or a map.
	Labels json.RawMessage `json:"labels"`
}

// startingLine runs the worker with args against servers where nothing
// listens (port 1: it retries until its context ends, after its starting
// line) and returns that line.
func startingLine(t *testing.T, args []string) startingRecord {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	c := Command()
	var stderr bytes.Buffer
	c.SetErr(&stderr)
	c.SetOut(&stderr)
	c.SetArgs(args)
	_ = c.ExecuteContext(ctx)
	for line := range strings.Lines(stderr.String()) {
		var rec startingRecord
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Code == "worker_starting" {
			return rec
		}
	}
	t.Fatalf("no worker_starting line in the worker's output:\n%s", stderr.String())
	return startingRecord{}
}

// A registration the ingress refuses as invalid (a --labels value that
// contradicts the credential's labels) is the operator's input to change:
// the worker exits 2 with the replica's reason, by the rule every command
// exits by, not 1 as for a failure that may pass by itself.
func TestARegistrationRefusedAsInvalidExitsTwo(t *testing.T) {
	t.Parallel()
	const reason = "label zone=us contradicts the credential's zone=eu; drop it from the worker's labels, or create a worker credential with the labels it should have"
	ingress := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(workerproto.Error{Code: workerproto.CodeInvalid, Message: reason})
	}))
	t.Cleanup(ingress.Close)
	dir := t.TempDir()
	cred := filepath.Join(dir, "w.cred")
	if err := os.WriteFile(cred, []byte(workerproto.CredentialPrefix+"abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := cli.MainSingle(ctx, Command(), []string{"--server", ingress.URL, "--credential-file", cred, "--labels", "zone=us",
		"--data-dir", filepath.Join(dir, "journal"), "--stop-timeout", "1s"}, &stdout, &stderr)
	if code != cli.ExitUsage || !strings.Contains(stderr.String(), reason) {
		t.Fatalf("a worker whose registration was refused as invalid exited %d, said:\n%s\nwant exit %d with the reason", code, stderr.String(), cli.ExitUsage)
	}
}

// A worker refused before it registers exits by the rule every command
// exits by: 4 when another worker holds its --data-dir (as a second server
// on a data directory does), 2 when its credential file is readable by
// others or holds no credential (the input to change, as a --config file
// holding a password others may read is), or when the path names no file
// (a mistyped flag, with the usage hint), each saying what to do.
func TestAWorkerRefusedItsDataDirectoryOrCredentialFileExitsByTheRule(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cred := filepath.Join(dir, "w.cred")
	if err := os.WriteFile(cred, []byte(workerproto.CredentialPrefix+"abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "open.cred")
	if err := os.WriteFile(open, []byte(workerproto.CredentialPrefix+"abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notCred := filepath.Join(dir, "api.token")
	if err := os.WriteFile(notCred, []byte("qlt_abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	held := filepath.Join(dir, "held")
	j, err := journal.Open(t.Context(), held)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	for _, c := range []struct {
		cred, dataDir string
		code          int
		says          string
	}{
		{cred, held, cli.ExitConflict, "give this worker its own --data-dir"},
		{open, filepath.Join(dir, "journal"), cli.ExitUsage, "run chmod 600 " + open},
		{notCred, filepath.Join(dir, "journal"), cli.ExitUsage, "does not hold a worker credential"},
		{filepath.Join(dir, "mistyped.cred"), filepath.Join(dir, "journal"), cli.ExitUsage, "Run 'worker --help' for usage"},
	} {
		var stdout, stderr bytes.Buffer
		code := cli.MainSingle(t.Context(), Command(), []string{"--server", "http://127.0.0.1:1", "--credential-file", c.cred,
			"--data-dir", c.dataDir, "--stop-timeout", "1s"}, &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.says) {
			t.Errorf("worker with --credential-file %s --data-dir %s: exit %d, said:\n%s\nwant exit %d saying %q", c.cred, c.dataDir, code, stderr.String(), c.code, c.says)
		}
	}
}

// A --run-as naming no account on this machine is refused before the
// worker registers, naming it, and exits 1 as a server's start does (what
// it names does not exist); a malformed one exits 2 naming --run-as.
func TestAWorkerRunAsIsRefusedAsTheServersIs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cred := filepath.Join(dir, "w.cred")
	if err := os.WriteFile(cred, []byte(workerproto.CredentialPrefix+"abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		runAs string
		code  int
		says  string
	}{
		{"no-such-user-ql", cli.ExitFailed, `runAs user "no-such-user-ql" does not exist on this machine`},
		{"a b", cli.ExitUsage, `--run-as.user: "a b" must be a user name`},
	} {
		// Bounded, so a worker that took the account would end the test.
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		var stdout, stderr bytes.Buffer
		code := cli.MainSingle(ctx, Command(), []string{"--server", "http://127.0.0.1:1", "--credential-file", cred, "--run-as", c.runAs,
			"--data-dir", filepath.Join(dir, "journal"), "--stop-timeout", "1s"}, &stdout, &stderr)
		cancel()
		if code != c.code || !strings.Contains(stderr.String(), c.says) {
			t.Errorf("--run-as %q: exit %d, said:\n%s\nwant exit %d saying %q", c.runAs, code, stderr.String(), c.code, c.says)
		}
	}
}

// Not parallel: sets the environment. A setting refused when it came from
// the environment names the variable, as serve's refusals do: an operator
// who typed no --concurrency looks for QL_CONCURRENCY, not for a flag.
func TestASettingRefusedFromTheEnvironmentNamesItsVariable(t *testing.T) {
	dir := t.TempDir()
	cred := filepath.Join(dir, "w.cred")
	if err := os.WriteFile(cred, []byte(workerproto.CredentialPrefix+"abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ variable, value, says string }{
		{"QL_CONCURRENCY", "0", "--concurrency 0 is outside 1–256"},
		{"QL_STOP_TIMEOUT", "25h", "--stop-timeout 25h is outside 1s–24h"},
		{"QL_LOG_LEVEL", "trace", `--log-level "trace" is not a level`},
		{"QL_LABELS", "zone", `--labels "zone": each label is key=value`},
		{"QL_RUN_AS", "a b", `--run-as.user: "a b" must be a user name`},
	} {
		t.Run(c.variable, func(t *testing.T) {
			t.Setenv(c.variable, c.value)
			var stdout, stderr bytes.Buffer
			code := cli.MainSingle(t.Context(), Command(), []string{"--server", "http://127.0.0.1:1", "--credential-file", cred,
				"--data-dir", filepath.Join(dir, "journal")}, &stdout, &stderr)
			want := "(set by " + c.variable + " in the environment)"
			if code != cli.ExitUsage || !containsAll(stderr.String(), c.says, want) {
				t.Fatalf("%s=%s: exit %d, said:\n%s\nwant exit %d saying %q and %q", c.variable, c.value, code, stderr.String(), cli.ExitUsage, c.says, want)
			}
		})
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// credentialDir is a new directory holding a worker credential file, the
// file's path, and the test's working directory (to give paths relative
// to it).
func credentialDir(t *testing.T) (dir, cred, wd string) {
	t.Helper()
	dir = t.TempDir()
	cred = filepath.Join(dir, "w.cred")
	if err := os.WriteFile(cred, []byte(workerproto.CredentialPrefix+"abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return dir, cred, wd
}
