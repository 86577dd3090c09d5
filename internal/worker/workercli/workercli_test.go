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
