package workercli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
