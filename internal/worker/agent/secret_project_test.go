package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// A granted command naming another project's secret (a definition
// published before the apply refused such names) is not spawned, though
// the worker's secrets file defines it: the attempt's log says whose
// secret it is.
func TestAGrantNamingAnotherProjectsSecretIsNotSpawnedThoughTheFileDefinesIt(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	dir := t.TempDir()
	secrets := filepath.Join(dir, "secrets.json")
	if err := os.WriteFile(secrets, []byte(`{"beta/api-token": "v3ry-s3cret-value"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := shell(fmt.Sprintf(`touch %s/spawned`, dir))
	c.Env = []task.EnvVar{{Name: "API_TOKEN", SecretRef: "beta/api-token"}}
	g := in.enqueue(t, c)
	runAgent(t, in, func(c *Config) { c.SecretsFile = secrets })
	done := in.completed(g.AttemptID)
	log := string(in.attempt(g.AttemptID).log)
	if done.Outcome != workerproto.OutcomeSpawnFailed || done.ErrorCode != ErrorCodeSecret || !strings.Contains(log, `secret "beta/api-token" belongs to project beta`) || !strings.Contains(log, "not project demo's") {
		t.Fatalf("completion %+v, log %q; want spawn_failed naming the secret's project", done, log)
	}
	if _, err := os.Stat(filepath.Join(dir, "spawned")); err == nil {
		t.Fatal("the command ran with another project's secret")
	}
}
