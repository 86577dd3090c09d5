package executor

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

func TestOutputBeyondTheCapIsCutAndMarked(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a.log")
	log, err := createLog(path, 1024)
	if err != nil {
		t.Fatal(err)
	}
	res := runCommand(t.Context(), shell(`head -c 100000 /dev/zero | tr '\0' a`, time.Minute), []string{"PATH=/usr/bin:/bin"}, log, func(int) {})
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if res.state != run.AttemptSucceeded {
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
	if !ok || body != strings.Repeat("a", 1024) || !strings.Contains(marker, "first 1024 of 100000 bytes") {
		t.Fatalf("log file (%d bytes) is not the first 1024 bytes followed by the truncation marker: ...%q", len(data), data[max(0, len(data)-120):])
	}
}

func TestOutputUnderTheCapIsKeptWhole(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a.log")
	log, err := createLog(path, 1024)
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

// Whatever way the output is split into writes, a secret value never
// reaches the sink and everything else does, byte for byte.
func TestSecretValuesAreMaskedAcrossAnySplitOfWrites(t *testing.T) {
	t.Parallel()
	secrets := []string{"s3cr3t-token", "hunter2", "s3cr3t"}
	input := "user=alice password=hunter2 token=s3cr3t-token short=s3cr3t end hunter"
	want := "user=alice password=*** token=*** short=*** end hunter"
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 500 {
		var sink bytes.Buffer
		r := newRedactor(&sink, secrets)
		rest := []byte(input)
		for len(rest) > 0 {
			n := 1 + rng.IntN(len(rest))
			if trial%7 == 0 {
				n = 1
			}
			if _, err := r.Write(rest[:n]); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		if err := r.Flush(); err != nil {
			t.Fatal(err)
		}
		if sink.String() != want {
			t.Fatalf("trial %d: %q, want %q", trial, sink.String(), want)
		}
	}
}
