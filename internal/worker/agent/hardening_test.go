package agent

import (
	"os"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/task"
)

// A worker data directory others may write lets them replace the
// journal's lease tokens: the worker warns once, at start, as the servers
// do; one they may only list (the journal's files are owner-only) is said
// as information.
func TestAWorkerDataDirectoryOthersMayWriteIsAWarningAndOneTheyMayOnlyListIsInformation(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	for _, c := range []struct {
		mode  os.FileMode
		level string
	}{{0o775, "WARN"}, {0o755, "INFO"}, {0o700, ""}} {
		dir := t.TempDir()
		if err := os.Chmod(dir, c.mode); err != nil {
			t.Fatal(err)
		}
		w := runAgent(t, in, func(cfg *Config) { cfg.DataDir = dir })
		waitFor(t, "the registration", func() bool { return strings.Contains(w.logs.String(), "worker_registered") })
		if _, err := w.stop(); err != nil {
			t.Fatal(err)
		}
		var lines []string
		for line := range strings.Lines(w.logs.String()) {
			if strings.Contains(line, `"code":"data_dir_shared"`) {
				lines = append(lines, line)
			}
		}
		if c.level == "" {
			if len(lines) != 0 {
				t.Fatalf("data directory mode %04o: %d lines, want none: %q", c.mode, len(lines), lines)
			}
			continue
		}
		if len(lines) != 1 || !strings.Contains(lines[0], `"level":"`+c.level+`"`) || !strings.Contains(lines[0], "chmod 700") {
			t.Fatalf("data directory mode %04o: want one %s line saying chmod 700, got %q", c.mode, c.level, lines)
		}
	}
}

// A worker whose commands would run as root (or as the owner of its data
// directory) lets a task read its journal, its credential and its
// environment: it says so once at start, naming --run-as, and works all
// the same; at WARN as root, at INFO as the directory's owner, as the
// servers do. A --run-as account that owns nothing there is quiet.
func TestAWorkerWhoseCommandsWouldRunAsRootSaysSoAtStart(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("the worker runs its commands as root only when it runs as root")
	}
	for _, c := range []struct {
		name, runAs, level, who string
		dirOwner, warn          int
	}{
		{"no --run-as, as root", "", "WARN", "root (uid 0)", 0, 1},
		{"--run-as an account owning nothing here", "nobody", "", "", 0, 0},
		{"--run-as the data directory's owner", "nobody", "INFO", "uid 65534, the data directory's owner", 65534, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Chown(dir, c.dirOwner, -1); err != nil {
				t.Fatal(err)
			}
			w := runAgent(t, newIngress(t, 30_000), func(cfg *Config) { cfg.DataDir, cfg.RunAs = dir, task.RunAs{User: c.runAs} })
			waitFor(t, "the registration", func() bool { return strings.Contains(w.logs.String(), "worker_registered") })
			if _, err := w.stop(); err != nil {
				t.Fatal(err)
			}
			log := w.logs.String()
			if got := strings.Count(log, `"code":"tasks_not_isolated"`); got != c.warn {
				t.Fatalf("%d lines tasks_not_isolated, want %d; log:\n%s", got, c.warn, log)
			}
			if c.warn == 0 {
				return
			}
			for _, want := range []string{`"level":"` + c.level + `"`, c.who, "credential file", "/proc/PID/environ", "give --run-as USER"} {
				if !strings.Contains(log, want) {
					t.Errorf("the line does not say %q:\n%s", want, log)
				}
			}
		})
	}
}
