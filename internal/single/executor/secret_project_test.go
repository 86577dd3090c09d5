package executor

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
)

// A command whose definition names another project's secret (published
// before the apply refused such names) is not started and never gets the
// value, though the secrets file defines it: the log says whose secret it
// is and what to do.
func TestACommandNamingAnotherProjectsSecretIsNotStartedThoughTheFileDefinesIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if err := os.WriteFile(filepath.Join(h.dir, "secrets.json"), []byte(`{"beta/api-token": "`+secretValue+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := shell(`echo "got $TOKEN"`, time.Minute)
	c.Env = []task.EnvVar{{Name: "TOKEN", SecretRef: "beta/api-token"}}
	res, got := h.runAlone(t, c)
	if res.ErrorCode != ErrorCodeSecret || got.Run.State != run.Failed || slices.Contains(names(got), run.EventAttemptStarted) {
		t.Fatalf("attempt %+v, events %v; want it failed before it started", res, names(got))
	}
	var log bytes.Buffer
	if err := ReadLog(filepath.Join(h.dir, "logs"), res.ID, &log); err != nil {
		t.Fatal(err)
	}
	if s := log.String(); !strings.Contains(s, `secret "beta/api-token" belongs to project beta`) || !strings.Contains(s, "not project demo's") || strings.Contains(s, "got") {
		t.Fatalf("log %q; want the secret's project named and no output", s)
	}
}
