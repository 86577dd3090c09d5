package executor

import (
	"context"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
)

// Store is the run-state contract the executor needs. Each method is one
// transaction that checks its transitions (run.CheckTransition,
// run.CheckAttemptTransition) and appends the matching event.
type Store interface {
	// AttemptsPending lists claimed local attempts of queued runs, oldest
	// first.
	AttemptsPending(ctx context.Context, limit int) ([]run.Attempt, error)
	// AttemptStart moves a claimed attempt to starting for owner and its
	// run to running, and returns the run's execution plan and the
	// attempt's identity (its command's QL_* variables). err is a qlerror
	// Conflict when another dispatcher won the attempt; planErr reports a
	// plan that failed verification (the start is committed).
	AttemptStart(ctx context.Context, attemptID, owner, logPath string) (plan task.Execution, id run.Identity, planErr, err error)
	// AttemptRunning records the started process.
	AttemptRunning(ctx context.Context, attemptID string, pid int) error
	// AttemptLogCut records that a starting or running attempt's log was
	// cut at its cap; an attempt that has ended keeps what its result
	// said.
	AttemptLogCut(ctx context.Context, attemptID string) error
	// AttemptFinish records a result: State, ExitCode, ErrorCode,
	// LogBytes and LogTruncated of a. finished is the state the call
	// finished the Run in (run.Finishes), "" when it did not finish it.
	AttemptFinish(ctx context.Context, a run.Attempt) (finished run.State, err error)
	// RetriesRequeue queues at most limit Runs waiting to retry whose
	// backoff has passed, and says how long until the earliest backoff
	// still running ends (zero when none runs).
	RetriesRequeue(ctx context.Context, limit int) (requeued int, next time.Duration, err error)
	// AttemptsCancelRequested lists owner's starting or running attempts
	// whose run was asked to cancel.
	AttemptsCancelRequested(ctx context.Context, owner string) ([]string, error)
	// AttemptOwners lists owners holding starting or running attempts.
	AttemptOwners(ctx context.Context) ([]string, error)
	// AttemptsLose marks an owner's starting or running attempts lost and
	// returns them as they were (ID, PID, StartedAtMs), with the Runs the
	// call finished (lost).
	AttemptsLose(ctx context.Context, owner string) ([]run.Attempt, run.FinishCounts, error)
}
