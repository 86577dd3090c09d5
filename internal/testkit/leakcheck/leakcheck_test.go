package leakcheck_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/leakcheck"
)

// leakEnv makes the test binary leave a goroutine blocked forever before
// its tests run, so a child process can show what Main does with it.
const leakEnv = "QL_LEAKCHECK_TEST_LEAK"

func TestMain(m *testing.M) {
	if os.Getenv(leakEnv) != "" {
		leakOne()
	}
	leakcheck.Main(m)
}

// leakOne starts a goroutine that never ends.
func leakOne() {
	never := make(chan struct{})
	go func() { <-never }()
}

// A binary whose tests all pass still fails when a goroutine outlives
// them, and names it; the same binary without the goroutine passes.
func TestMainFailsABinaryThatLeavesAGoroutineRunning(t *testing.T) {
	t.Parallel()
	for _, leak := range []bool{false, true} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = os.Environ()
		if leak {
			cmd.Env = append(cmd.Env, leakEnv+"=1")
		}
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		switch {
		case !leak && err != nil:
			t.Fatalf("without a leak the binary failed: %v\n%s", err, out)
		case leak && (!errors.As(err, &exit) || exit.ExitCode() != 1):
			t.Fatalf("with a leaked goroutine the binary ended with %v, want exit status 1\n%s", err, out)
		case leak && !strings.Contains(string(out), "leakcheck_test.leakOne"):
			t.Fatalf("the report does not name the leaked goroutine's function:\n%s", out)
		}
	}
}
