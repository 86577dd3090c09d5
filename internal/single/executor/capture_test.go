package executor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/run"
)

func TestOutputBeyondTheCapIsCutAndMarked(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a.log")
	log, err := createLog(path, 1024, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := process.Spec{Identity: run.Identity{RunID: "run", AttemptID: "attempt"}, Command: shell(`head -c 100000 /dev/zero | tr '\0' a`, time.Minute), BaseEnv: []string{"PATH=/usr/bin:/bin"}}
	res := process.Run(t.Context(), nil, spec, log, func(int) {})
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if res.State != run.AttemptSucceeded {
		t.Fatalf("result %+v: the command must not be hurt by the cap", res)
	}
	if !log.truncated || log.total != 100000 || log.kept != 1024 {
		t.Fatalf("log kept %d of %d (truncated %v); want 1024 of 100000, truncated", log.kept, log.total, log.truncated)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	body, marker, ok := strings.Cut(string(data), "\n[qinglong: output truncated")
	if !ok || body != strings.Repeat("a", 1024) || !strings.Contains(marker, "at the log cap of 1024 bytes") {
		t.Fatalf("log file (%d bytes) is not the first 1024 bytes followed by the truncation marker: ...%q", len(data), data[max(0, len(data)-120):])
	}
}

func TestOutputUnderTheCapIsKeptWhole(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a.log")
	log, err := createLog(path, 1024, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := log.Write([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "hello\n" || log.truncated {
		t.Fatalf("log %q truncated=%v; want the output unchanged", data, log.truncated)
	}
}
