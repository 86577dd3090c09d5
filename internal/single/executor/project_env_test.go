package executor

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
)

// setProjectEnv gives the harness's project env.
func (h *harness) setProjectEnv(t *testing.T, env ...task.EnvVar) {
	t.Helper()
	h.project.Env = env
	if _, err := h.store.ProjectSave(t.Context(), h.project); err != nil {
		t.Fatal(err)
	}
}

// runAll admits a Run of each command, runs them all and returns each
// one's log, in order.
func (h *harness) runAll(t *testing.T, commands ...task.Command) []string {
	t.Helper()
	runIDs := make([]string, len(commands))
	for i, c := range commands {
		runIDs[i] = h.admit(t, c)
	}
	d, sig := h.dispatcher(t, dispatcherOpts{concurrency: len(commands)})
	d.Wake()
	sig.wait(t, len(commands))
	logs := make([]string, len(commands))
	for i, id := range runIDs {
		got := h.detail(t, id)
		var log bytes.Buffer
		if err := ReadLog(filepath.Join(h.dir, "logs"), got.Attempts[0].ID, &log); err != nil {
			t.Fatal(err)
		}
		if got.Run.State != run.Succeeded {
			t.Fatalf("run %s %s: %q", id, got.Run.State, log.String())
		}
		logs[i] = log.String()
	}
	return logs
}

// Every task of a project starts with the project's env, without naming
// it: two tasks with no env of their own each see its value and its
// secret.
func TestEveryTaskOfAProjectSeesItsProjectEnv(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	writeSecrets(t, h.dir, 0o600)
	h.setProjectEnv(t, task.EnvVar{Name: "REGION", Value: "cn-east"}, task.EnvVar{Name: "TOKEN", SecretRef: "api-token"})
	c := shell(`echo "region=$REGION token=$TOKEN"`, time.Minute)
	for i, log := range h.runAll(t, c, c) {
		if log != "region=cn-east token=***\n" {
			t.Fatalf("task %d logged %q; want the project's REGION and its TOKEN (masked)", i, log)
		}
	}
}

// A task's own variable wins over its project's of the same name; the
// project's others are still there.
func TestATasksOwnEnvWinsOverItsProjectsEnv(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.setProjectEnv(t, task.EnvVar{Name: "REGION", Value: "cn-east"}, task.EnvVar{Name: "TIER", Value: "gold"})
	c := shell(`echo "region=$REGION tier=$TIER"`, time.Minute)
	c.Env = []task.EnvVar{{Name: "REGION", Value: "us-west"}}
	if log := h.runAll(t, c)[0]; log != "region=us-west tier=gold\n" {
		t.Fatalf("logged %q; want the task's own REGION and the project's TIER", log)
	}
}

// A secret of the project's env is kept by name: its value, written to
// the secrets file after the env was saved, reaches the command as it
// starts, and no byte of the database, its WAL or the log.
func TestProjectEnvSecretIsResolvedAtStartAndNeverStored(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.setProjectEnv(t, task.EnvVar{Name: "TOKEN", SecretRef: "api-token"})
	writeSecrets(t, h.dir, 0o600)
	log := h.runAll(t, shell(`printf '%s' "$TOKEN" | sha256sum`, time.Minute))[0]
	sum := sha256.Sum256([]byte(secretValue))
	if log != hex.EncodeToString(sum[:])+"  -\n" {
		t.Fatalf("logged %q; the command did not start with the secret's value", log)
	}
	var stored string
	if err := h.raw.QueryRow(`SELECT env_json FROM projects WHERE id = ?`, h.project.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != `[{"name":"TOKEN","secretRef":"api-token"}]` {
		t.Fatalf("the project's env is stored as %q; want the secret's name alone", stored)
	}
	err := filepath.WalkDir(h.dir, func(path string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() || filepath.Base(path) == "secrets.json" {
			return err
		}
		data, err := os.ReadFile(path)
		if err == nil && bytes.Contains(data, []byte(secretValue)) {
			t.Errorf("%s contains the secret value", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
