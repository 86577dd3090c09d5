package pgtest

import (
	"fmt"
	"os"
)

// OrphanHelperEnv makes the test binary act as the child of
// TestOrphanedServerDies instead of running tests (see TestMain).
const OrphanHelperEnv = "PGTEST_ORPHAN_HELPER"

// OrphanHelperMain is the child side of TestOrphanedServerDies: it starts
// the shared server, reports it, then dies without Main's stop ever running
// — killed by the parent ("kill") or by a panic ("panic"). It never returns.
func OrphanHelperMain(mode string) {
	mainRunning.Store(true)
	sharedOnce.Do(startShared)
	if sharedErr != nil {
		fmt.Fprintln(os.Stderr, sharedErr)
		os.Exit(2)
	}
	fmt.Printf("orphan-helper pid=%d port=%d dir=%s\n", shared.PID(), shared.Port(), shared.base.path)
	if mode == "panic" {
		panic("pgtest orphan helper: dying without returning from m.Run")
	}
	select {} // until the parent kills us
}
