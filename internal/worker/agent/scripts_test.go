package agent

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Every command a worker starts finds the worker's scripts folder in
// $QL_SCRIPTS_DIR, an absolute path, as on a single node: scripts in the
// data directory by default, or the folder --scripts-dir names. The
// worker creates it at start (mode 0755, so a task's runAs account may
// read it) and its starting line names it.
func TestEveryCommandAWorkerStartsFindsItsScriptsFolder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, tc := range []struct{ name, flag, want string }{
		{"default", "", filepath.Join(root, "default", "data", "scripts")},
		{"flag", filepath.Join(root, "flag", "elsewhere", "scripts"), filepath.Join(root, "flag", "elsewhere", "scripts")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := newIngress(t, 30_000)
			g := in.enqueue(t, shell(`printf '%s\n' "$QL_SCRIPTS_DIR"; stat -c %a "$QL_SCRIPTS_DIR"`))
			w := runAgent(t, in, func(c *Config) {
				c.DataDir, c.ScriptsDir = filepath.Join(root, tc.name, "data"), tc.flag
			})
			in.completed(g.AttemptID)
			if got, want := strings.TrimSpace(string(in.attempt(g.AttemptID).log)), tc.want+"\n755"; got != want {
				t.Errorf("the command printed %q, want %q: the scripts folder, made with mode 0755", got, want)
			}
			if _, err := w.stop(); err != nil {
				t.Fatal(err)
			}
			logged := ""
			for _, line := range strings.Split(w.logs.String(), "\n") {
				var rec struct {
					Code       string `json:"code"`
					ScriptsDir string `json:"scripts_dir"`
				}
				if json.Unmarshal([]byte(line), &rec) == nil && rec.Code == "worker_starting" {
					logged = rec.ScriptsDir
				}
			}
			if logged != tc.want {
				t.Errorf("the worker_starting line names scripts_dir %q, want %q\n%s", logged, tc.want, w.logs.String())
			}
		})
	}
}

// A scripts folder the worker cannot create stops it at start, before it
// takes work whose commands would not find it, with a refusal saying
// what to give instead.
func TestAWorkerWhoseScriptsFolderCannotBeMadeDoesNotStart(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), Config{Server: in.srv.URL, Credential: in.credential, DataDir: t.TempDir(), ScriptsDir: filepath.Join(file, "scripts"),
		Concurrency: 1, StopTimeout: 5 * time.Second, Logger: slog.New(slog.DiscardHandler)})
	if err == nil || !containsAll(err.Error(), "create the scripts folder "+filepath.Join(file, "scripts"), "give --scripts-dir") {
		t.Fatalf("Run = %v; want a refusal naming the folder and --scripts-dir", err)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.registeredReads) != 0 {
		t.Error("the worker registered before it refused to start")
	}
}
