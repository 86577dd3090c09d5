package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
)

func qlEdge(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Main(context.Background(), options(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// The edge binary's help shows only what it can do: no cluster profile,
// flags, examples or PostgreSQL URLs.
func TestEdgeHelpShowsNothingOfTheCluster(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"serve", "--help"}, {"runs", "list", "--help"}, {"apply", "--help"}, {"triggers", "list", "--help"}} {
		code, out, _ := qlEdge(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		for _, word := range []string{"cluster", "postgres", "database-url", "replica-id", "role-prefix", "--lease", "commit-parallel", "QL_DATABASE_URL"} {
			if strings.Contains(strings.ToLower(out), strings.ToLower(word)) {
				t.Errorf("ql-edge %s mentions %q:\n%s", strings.Join(args, " "), word, out)
			}
		}
	}
	// The single-node HTTP server serves the API and the health probes.
	if _, out, _ := qlEdge(t, "serve", "--help"); !strings.Contains(out, "/api/v1") || !strings.Contains(out, "/livez and /readyz") {
		t.Errorf("serve --help promises what the edge HTTP server does not serve:\n%s", out)
	}
	if code, _, stderr := qlEdge(t, "serve", "--database-url", "postgres://db/ql"); code != 2 || !strings.Contains(stderr, "unknown flag") {
		t.Fatalf("serve --database-url: exit %d %q; want a usage error", code, stderr)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// `ql-edge serve` without --profile serves the edge profile.
func TestEdgeServesTheEdgeProfileByDefault(t *testing.T) {
	t.Parallel()
	if code, out, _ := qlEdge(t, "serve", "--help"); code != 0 || !strings.Contains(out, `(default "edge")`) {
		t.Fatalf("serve --help: exit %d; want the edge profile as default:\n%s", code, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	exit := make(chan int, 1)
	go func() { exit <- cli.Main(ctx, options(), []string{"serve", "--data-dir", t.TempDir()}, &out, &errOut) }()
	deadline := time.After(30 * time.Second)
	for !strings.Contains(errOut.String(), "msg=serving") {
		select {
		case code := <-exit:
			t.Fatalf("serve exited %d: %s", code, errOut.String())
		case <-deadline:
			t.Fatalf("serve did not start within 30s: %s", errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	if code := <-exit; code != 0 {
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "profile=edge") || !strings.Contains(errOut.String(), "page=4") {
		t.Fatalf("serve did not run the edge profile:\n%s", errOut.String())
	}
}
