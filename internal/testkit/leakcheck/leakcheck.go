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

	"go.uber.org/goleak"
)

// ignored names the goroutines that may outlive the tests, each with why it
// is not a leak. Add one here, never in a single package, so every
// exception is in one place and has a reason. None is known today.
var ignored []goleak.Option

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
// own and the ones listed as harmless. goleak retries for a while before it
// reports, so a goroutine that is already on its way out is not a leak.
func Check() error {
	if err := goleak.Find(ignored...); err != nil {
		return fmt.Errorf("leakcheck: goroutines still running after the tests; a Stop or Close returned before its goroutines ended:\n%w", err)
	}
	return nil
}
