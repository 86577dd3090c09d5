package agent

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// An attempt the worker did not start because its journal records that it
// started it before is reported as never started (spawn_failed, no exit
// code, its own error code): reported as an exit without an exit code, the
// replica refused the completion and the attempt waited out its lease.
func TestAnAttemptNotStartedBecauseItRanBeforeIsReportedAsNeverStarted(t *testing.T) {
	t.Parallel()
	outcome, exit, code := completion(process.Result{State: run.AttemptFailed, Code: ErrorCodeLaunchedBefore}, "")
	if outcome != workerproto.OutcomeSpawnFailed || exit != nil || code != ErrorCodeLaunchedBefore {
		t.Fatalf("reported as %s, exit %v, code %q; want %s without an exit code, %s", outcome, exit, code, workerproto.OutcomeSpawnFailed, ErrorCodeLaunchedBefore)
	}
}
