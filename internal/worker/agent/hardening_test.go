package agent

import (
	"os"
	"strings"
	"testing"
)

// A worker data directory others may enter holds the journal's lease
// tokens in their reach: the worker says so once, at start, as the
// servers do.
func TestAWorkerDataDirectoryOpenToOthersIsWarnedAboutOnce(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	for _, c := range []struct {
		mode os.FileMode
		warn int
	}{{0o755, 1}, {0o700, 0}} {
		dir := t.TempDir()
		if err := os.Chmod(dir, c.mode); err != nil {
			t.Fatal(err)
		}
		w := runAgent(t, in, func(cfg *Config) { cfg.DataDir = dir })
		waitFor(t, "the registration", func() bool { return strings.Contains(w.logs.String(), "worker_registered") })
		if _, err := w.stop(); err != nil {
			t.Fatal(err)
		}
		log := w.logs.String()
		if got := strings.Count(log, `"code":"data_dir_shared"`); got != c.warn {
			t.Fatalf("data directory mode %04o: %d warnings, want %d; log:\n%s", c.mode, got, c.warn, log)
		}
		if c.warn == 1 && !strings.Contains(log, "chmod 700") {
			t.Fatalf("the warning does not say what to do:\n%s", log)
		}
	}
}

// A worker whose commands would run as root (or as the owner of its data
// directory) lets a task read its journal, its credential and its
// environment: it says so once at start, naming the task's runAs, and
// works all the same.
func TestAWorkerWhoseCommandsWouldRunAsRootSaysSoAtStart(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("the worker runs its commands as root only when it runs as root")
	}
	w := runAgent(t, newIngress(t, 30_000), nil)
	waitFor(t, "the registration", func() bool { return strings.Contains(w.logs.String(), "worker_registered") })
	if _, err := w.stop(); err != nil {
		t.Fatal(err)
	}
	log := w.logs.String()
	if got := strings.Count(log, `"code":"tasks_not_isolated"`); got != 1 {
		t.Fatalf("%d warnings tasks_not_isolated, want 1; log:\n%s", got, log)
	}
	for _, want := range []string{"root (uid 0)", "credential file", "/proc/PID/environ", "give those tasks runAs"} {
		if !strings.Contains(log, want) {
			t.Errorf("the warning does not say %q:\n%s", want, log)
		}
	}
}
