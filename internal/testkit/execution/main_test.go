package execution

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// buildTimeout bounds building both binaries.
const buildTimeout = 5 * time.Minute

var (
	binDir    string
	buildOnce sync.Once
	buildErr  error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ql-execution-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := pgtest.Run(m)
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

// binaries builds cmd/ql and cmd/ql-worker once for every test: the tests
// drive the real binaries, so signals, exits and process death are real.
func binaries(t testing.TB) (ql, worker string) {
	t.Helper()
	buildOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
		defer cancel()
		for _, name := range []string{"ql", "ql-worker"} {
			cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(binDir, name), "github.com/qinglong/qinglong/cmd/"+name)
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build ./cmd/%s: %v\n%s", name, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "ql"), filepath.Join(binDir, "ql-worker")
}
