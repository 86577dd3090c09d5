// Package cmdbuild builds the module's commands (cmd/ql, cmd/ql-worker,
// …) once per test process, for the tests that drive the real binaries so
// that signals, exit codes and process death are real. A link of one
// costs seconds of CPU, which every test paid on its own before; the
// binaries live in a directory the test process removes when its tests
// end (Run), and tests only run them, never change them.
package cmdbuild

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// module is the import path the commands are built from.
const module = "github.com/qinglong/qinglong/cmd/"

// buildTimeout bounds building one binary.
const buildTimeout = 5 * time.Minute

var (
	mu    sync.Mutex
	dir   string
	built = map[string]*binary{}
)

// binary is one command, built at most once.
type binary struct {
	once sync.Once
	path string
	err  error
}

// Run runs the package's tests with run (m.Run, or pgtest.Run for a
// package that also uses the private PostgreSQL) and removes the binaries
// built meanwhile; it returns the exit code for TestMain to exit with.
func Run(m *testing.M, run func(*testing.M) int) int {
	d, err := os.MkdirTemp("", "ql-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "cmdbuild:", err)
		return 1
	}
	mu.Lock()
	dir = d
	mu.Unlock()
	code := run(m)
	if err := os.RemoveAll(d); err != nil {
		fmt.Fprintln(os.Stderr, "cmdbuild:", err)
	}
	return code
}

// Binary is the path of cmd/name, built on the first call of the test
// process; a failed build fails every test that asks for it.
func Binary(t testing.TB, name string) string {
	t.Helper()
	mu.Lock()
	if dir == "" {
		mu.Unlock()
		t.Fatal("cmdbuild: the package's TestMain must run its tests through cmdbuild.Run")
	}
	b := built[name]
	if b == nil {
		b = &binary{path: filepath.Join(dir, name)}
		built[name] = b
	}
	mu.Unlock()
	b.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
		defer cancel()
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", b.path, module+name).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build ./cmd/%s: %v\n%s", name, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}
