package workercli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/worker/journal"
)

// --server given twice names two replicas to try in turn, as
// `--server a,b` does: a plain string flag kept only the last one, so the
// worker never failed over to the first.
func TestServerGivenTwiceNamesBothReplicas(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cred := filepath.Join(dir, "w.cred")
	if err := os.WriteFile(cred, []byte(workerproto.CredentialPrefix+"abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Nothing listens on port 1: the worker keeps retrying until the
	// context ends, after its starting line.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	c := Command()
	var stderr bytes.Buffer
	c.SetErr(&stderr)
	c.SetOut(&stderr)
	c.SetArgs([]string{"--server", "http://127.0.0.1:1", "--server", "http://localhost:1", "--credential-file", cred,
		"--data-dir", filepath.Join(dir, "journal"), "--stop-timeout", "1s"})
	_ = c.ExecuteContext(ctx)
	for line := range strings.Lines(stderr.String()) {
		var rec struct {
			Code   string   `json:"code"`
			Server []string `json:"server"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil || rec.Code != "worker_starting" {
			continue
		}
		if want := []string{"http://127.0.0.1:1", "http://localhost:1"}; !slices.Equal(rec.Server, want) {
			t.Fatalf("the worker started with servers %q, want %q", rec.Server, want)
		}
		return
	}
	t.Fatalf("no worker_starting line in the worker's output:\n%s", stderr.String())
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
// holding a password others may read is), each saying what to do.
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
	} {
		var stdout, stderr bytes.Buffer
		code := cli.MainSingle(t.Context(), Command(), []string{"--server", "http://127.0.0.1:1", "--credential-file", c.cred,
			"--data-dir", c.dataDir, "--stop-timeout", "1s"}, &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.says) {
			t.Errorf("worker with --credential-file %s --data-dir %s: exit %d, said:\n%s\nwant exit %d saying %q", c.cred, c.dataDir, code, stderr.String(), c.code, c.says)
		}
	}
}
