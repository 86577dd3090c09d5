package agent

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkWorkerFootprint builds cmd/ql-worker and, as the same-run
// baseline, the full cmd/ql, and reports each binary's size and the
// resident memory of its worker registered with an ingress, idle (0
// running commands) and with 8 commands running (target: ql-worker idle
// ≤ 20 MiB). Run it once:
//
//	go test -run '^$' -bench WorkerFootprint -benchtime 1x ./internal/worker/agent/
func BenchmarkWorkerFootprint(b *testing.B) {
	dir := b.TempDir()
	cred := filepath.Join(dir, "credential")
	if err := os.WriteFile(cred, []byte(testCredential), 0o600); err != nil {
		b.Fatal(err)
	}
	for range b.N {
		for _, bin := range []struct {
			name string
			pkg  string
			args []string
		}{{"ql-worker", "./cmd/ql-worker", nil}, {"ql", "./cmd/ql", []string{"worker"}}} {
			path := filepath.Join(dir, bin.name)
			build := exec.Command("go", "build", "-trimpath", "-o", path, bin.pkg)
			build.Dir = "../../.."
			if out, err := build.CombinedOutput(); err != nil {
				b.Fatalf("build %s: %v\n%s", bin.pkg, err, out)
			}
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(st.Size())/(1<<20), bin.name+"-binary-MiB")
			for _, n := range []int{0, 8} {
				rss := footprint(b, path, bin.args, cred, n)
				b.ReportMetric(float64(rss)/1024, fmt.Sprintf("%s-rss-%d-running-MiB", bin.name, n))
			}
		}
	}
}

// footprint starts a worker running n commands and returns its resident
// set (KiB) once they all started and it settled.
func footprint(b *testing.B, path string, args []string, cred string, n int) int {
	b.Helper()
	in := newIngress(b, 60_000)
	for range n {
		in.enqueue(b, shell(`sleep 300`))
	}
	cmd := exec.Command(path, append(args, "--server", in.srv.URL, "--credential-file", cred, "--data-dir", b.TempDir(),
		"--concurrency", "8", "--stop-timeout", "1s")...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + b.TempDir()}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	waitFor(b, fmt.Sprintf("%d commands to start", n), func() bool {
		in.mu.Lock()
		defer in.mu.Unlock()
		started := 0
		for _, a := range in.attempts {
			started += a.starts
		}
		return started == n && in.requests >= 2 // registered, and pulling
	})
	time.Sleep(2 * time.Second)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kib, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				b.Fatal(err)
			}
			return kib
		}
	}
	b.Fatal("no VmRSS in /proc status")
	return 0
}
