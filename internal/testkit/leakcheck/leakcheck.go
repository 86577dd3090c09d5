// Package leakcheck fails a test binary that leaves goroutines running: a
// scheduler, executor or server whose Stop returns while one of its
// goroutines still runs would keep working on after its owner thinks it is
// gone. Every package whose tests start goroutines, directly or through the
// code they call, runs its tests through Main (or pgtest.Main, which calls
// Check once its servers are stopped); a repository test enforces that.
//
//	func TestMain(m *testing.M) { leakcheck.Main(m) }
package leakcheck

import (
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// ignored names the goroutines that may outlive the tests, each with why it
// is not a leak. Add one here, never in a single package, so every
// exception is in one place and has a reason. None is known today.
var ignored []goleak.Option

// settle is how long a goroutine on its way out may take to end before it
// counts as a leak (one goleak.Find gives up after about 0.4 s): net/http
// keeps a server connection open for 500 ms after an error answer so the
// client can read it (closeWriteAndWait), and a test's last request may
// have been answered with an error just before the tests ended.
const settle = 3 * time.Second

// Main runs the tests and exits with their code; when they passed, the
// binary fails instead if a goroutine they started is still running.
func Main(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if err := Check(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// Check reports the goroutines still running besides the test framework's
// own and the ones listed as harmless. It retries for a while before it
// reports, so a goroutine that is already on its way out is not a leak.
func Check() error {
	err := goleak.Find(ignored...)
	for deadline := time.Now().Add(settle); err != nil && time.Now().Before(deadline); {
		err = goleak.Find(ignored...)
	}
	if err != nil {
		return fmt.Errorf("leakcheck: goroutines still running after the tests; a Stop or Close returned before its goroutines ended:\n%w", err)
	}
	return nil
}
