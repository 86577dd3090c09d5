package leakcheck_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/leakcheck"
)

// leakEnv makes the test binary leave a goroutine blocked forever before
// its tests run, so a child process can show what Main does with it.
const leakEnv = "QL_LEAKCHECK_TEST_LEAK"

// lingerEnv makes the test binary leave a goroutine that ends a second
// after its tests: longer than one goleak look waits, shorter than Check's.
const lingerEnv = "QL_LEAKCHECK_TEST_LINGER"

func TestMain(m *testing.M) {
	if os.Getenv(leakEnv) != "" {
		leakOne()
	}
	if os.Getenv(lingerEnv) != "" {
		lingerOne()
	}
	leakcheck.Main(m)
}

// lingerOne starts a goroutine that ends a second from now, as a server
// connection held open after an error answer does.
func lingerOne() {
	go time.Sleep(time.Second)
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

// A goroutine that is on its way out when the tests end (a connection
// net/http holds open 500 ms after an error answer) is not a leak: the
// binary waits for it and passes.
func TestMainPassesABinaryWhoseLastGoroutineEndsSoonAfterTheTests(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), lingerEnv+"=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("a goroutine that ended a second after the tests failed the binary: %v\n%s", err, out)
	}
}
