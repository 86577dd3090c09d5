package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
)

// Error codes the store records on attempts it moves itself.
const (
	ErrorCodeExecutorLost = "executor_lost"
)

// AttemptsPending lists up to limit claimed local attempts of queued runs,
// oldest admission first.
func (s *Store) AttemptsPending(ctx context.Context, limit int) ([]run.Attempt, error) {
	if limit < 1 || limit > run.MaxPageSize {
		return nil, qlerror.New(qlerror.Invalid, "pending attempts: limit %d is outside 1–%d", limit, run.MaxPageSize)
	}
	rows, err := s.readPool().QueryContext(ctx, qAttemptsPending, limit)
	if err != nil {
		return nil, mapErr(err, "list pending attempts")
	}
	defer rows.Close()
	var out []run.Attempt
	for rows.Next() {
		var a run.Attempt
		if err := rows.Scan(&a.ID, &a.RunID, &a.Number, &a.Executor, &a.State, &a.CreatedAtMs); err != nil {
			return nil, mapErr(err, "list pending attempts")
		}
		out = append(out, a)
	}
	return out, mapErr(rows.Err(), "list pending attempts")
}

// attemptRow is an attempt's state with its run's, read under the write
// lock.
type attemptRow struct {
	runID       string
	state       run.AttemptState
	runState    run.State
	runVersion  int64
	lastSeq     int64
	executionID string
	// lastEventAtMs is when the run's latest event was written.
	lastEventAtMs int64
}

// endedAt is when an attempt's command ended and when its result takes
// effect on its run. endedMs is observedMs, when its executor saw the
// command end, so a result the store could take only later (the disk
// full, the write lock held) keeps the command's own end and duration,
// never after now, when the store takes it; it is the attempt's finish
// time and what a cancel asked meanwhile is compared with
// (run.CancelDecidesResult). runAtMs stamps the run's change and event: the
// same, but never before the run's latest event (a cancel asked while the
// result waited), so a run's events stay in time order. Without an
// observed end both are now.
func (a attemptRow) endedAt(observedMs *int64, now int64) (endedMs, runAtMs int64) {
	if observedMs == nil {
		return now, now
	}
	endedMs = min(*observedMs, now)
	return endedMs, max(a.lastEventAtMs, endedMs)
}

func readAttempt(ctx context.Context, tx *txn, id string) (attemptRow, error) {
	var a attemptRow
	err := tx.QueryRowContext(ctx, qAttemptWithRun, id).Scan(&a.runID, &a.state, &a.runState, &a.runVersion, &a.lastSeq, &a.executionID, &a.lastEventAtMs)
	if errors.Is(err, sql.ErrNoRows) {
		return a, qlerror.New(qlerror.NotFound, "attempt %s does not exist", id)
	}
	return a, err
}

// AttemptStart takes a claimed attempt for one executor owner (claimed →
// starting), moves its run queued → running with event run.running, and
// returns the run's execution plan and the attempt's identity for its
// command's environment. err is a Conflict when another dispatcher took the
// attempt first. The start commits even when the plan fails verification
// (planErr), so the caller records the attempt as failed instead of leaving
// it claimed forever.
func (s *Store) AttemptStart(ctx context.Context, attemptID, owner, logPath string) (plan task.Execution, id run.Identity, planErr, err error) {
	err = s.write(ctx, "start attempt "+attemptID, durable, func(tx *txn) error {
		a, err := readAttempt(ctx, tx, attemptID)
		if err != nil {
			return err
		}
		if a.state != run.AttemptClaimed {
			return qlerror.New(qlerror.Conflict, "attempt %s is already %s; another dispatcher took it", attemptID, a.state)
		}
		if err := run.CheckTransition(a.runState, run.Running); err != nil {
			return err
		}
		if err := projectHasRoom(ctx, tx, a.runID); err != nil {
			return err
		}
		now := s.nowMs()
		res, err := tx.ExecContext(ctx, qAttemptMarkStarting, owner, logPath, now, attemptID)
		if err != nil {
			return err
		}
		if err := exactlyOne(res, qlerror.Conflict, "attempt %s was taken by another dispatcher", attemptID); err != nil {
			return err
		}
		if _, err := transitionRun(ctx, tx, a, run.Running, run.EventRunning, map[string]any{"attemptId": attemptID}, now); err != nil {
			return err
		}
		if id, err = attemptIdentity(ctx, tx, a.runID, attemptID); err != nil {
			return err
		}
		plan, planErr = verifiedPlan(ctx, tx, a.executionID)
		if planErr == nil {
			plan.ProjectEnv, planErr = projectEnvOfRun(ctx, tx, a.runID)
		}
		return nil
	})
	if err != nil {
		return task.Execution{}, run.Identity{}, nil, err
	}
	return plan, id, planErr, nil
}

// projectHasRoom refuses, as a Conflict the dispatcher passes over, the
// start of a Run whose project already runs its maxRunning Runs: the
// dispatcher's page was read before the round's earlier starts, and this
// check, in the transaction taking the slot, is the one the cap rests on.
func projectHasRoom(ctx context.Context, tx *txn, runID string) error {
	var name string
	var limit, running int
	if err := tx.QueryRowContext(ctx, qProjectCapOfRun, runID).Scan(&name, &limit, &running); err != nil {
		return err
	}
	if limit > 0 && running >= limit {
		return qlerror.New(qlerror.Conflict, "project %s runs %d of its maxRunning %d; run %s waits for one of them to finish", name, running, limit, runID)
	}
	return nil
}

// attemptIdentity reads what attemptID's command is told about itself.
func attemptIdentity(ctx context.Context, tx *txn, runID, attemptID string) (run.Identity, error) {
	id := run.Identity{RunID: runID, AttemptID: attemptID}
	var dueAt sql.NullInt64
	var project, trigger, taskName, manual sql.NullString
	err := tx.QueryRowContext(ctx, qAttemptIdentity, attemptID).
		Scan(&id.AttemptNumber, &id.ScheduledForMs, &dueAt, &project, &trigger, &taskName, &manual)
	if err != nil {
		return id, qlerror.Wrap(qlerror.Internal, err, "the identity of attempt %s cannot be read", attemptID)
	}
	id.DueAtMs, id.Project, id.Trigger, id.Task, id.Origin = dueAt.Int64, project.String, trigger.String, taskName.String, run.OriginOf(manual.String)
	return id, nil
}

// projectEnvOfRun is the env of runID's project, which its attempt
// starts with (task.Command.WithProjectEnv); one that cannot be read
// fails the attempt as a plan that does not verify does.
func projectEnvOfRun(ctx context.Context, tx *txn, runID string) ([]task.EnvVar, error) {
	var env string
	if err := tx.QueryRowContext(ctx, qProjectEnvOfRun, runID).Scan(&env); err != nil {
		return nil, qlerror.Wrap(qlerror.Internal, err, "the project env of run %s cannot be read", runID)
	}
	return task.DecodeEnv(env)
}

func verifiedPlan(ctx context.Context, tx *txn, id string) (task.Execution, error) {
	var e task.Execution
	var cmdJSON string
	err := tx.QueryRowContext(ctx, qExecutionByID, id).
		Scan(&e.ID, &e.ProjectID, &e.TaskID, &e.TaskRevision, &e.TaskContentDigest, &e.Executor, &cmdJSON, &e.Digest)
	if err != nil {
		return e, qlerror.Wrap(qlerror.Internal, err, "execution revision %s cannot be read", id)
	}
	if e.Command, err = decodeCommandJSON(cmdJSON); err != nil {
		return e, qlerror.Wrap(qlerror.Internal, err, "execution revision %s does not decode", id)
	}
	return e, e.Verify(e.TaskRevision, e.TaskContentDigest, task.LocalProcess)
}

// AttemptLogCut marks a starting or running attempt's log truncated the
// moment the executor cuts it at its cap, so every reader of the Run says
// so while its command still runs (the log route's Ql-Log-Truncated,
// `ql runs show`), as the cluster's attempts are marked when a worker's
// append passes the cap. An attempt that has ended keeps what its result
// recorded.
func (s *Store) AttemptLogCut(ctx context.Context, attemptID string) error {
	return s.write(ctx, "mark the log of attempt "+attemptID+" cut", routine, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, qAttemptMarkLogCut, attemptID)
		return err
	})
}

// AttemptRunning records that the attempt's process exists (starting →
// running) with event attempt.started.
func (s *Store) AttemptRunning(ctx context.Context, attemptID string, pid int) error {
	return s.write(ctx, "mark attempt running "+attemptID, routine, func(tx *txn) error {
		a, err := readAttempt(ctx, tx, attemptID)
		if err != nil {
			return err
		}
		if err := run.CheckAttemptTransition(a.state, run.AttemptRunning); err != nil {
			return err
		}
		now := s.nowMs()
		res, err := tx.ExecContext(ctx, qAttemptMarkRunning, pid, attemptID)
		if err != nil {
			return err
		}
		if err := exactlyOne(res, qlerror.FailedPrecondition, "attempt %s left the starting state", attemptID); err != nil {
			return err
		}
		res, err = tx.ExecContext(ctx, qRunNoteEvent, now, a.runID, a.runVersion)
		if err != nil {
			return err
		}
		if err := exactlyOne(res, qlerror.Conflict, "run %s changed concurrently", a.runID); err != nil {
			return err
		}
		return insertEvent(ctx, tx, a.runID, a.lastSeq+1, run.EventAttemptStarted, map[string]any{"attemptId": attemptID, "pid": pid}, now)
	})
}
