package sqlitestore

import (
	"context"
	"database/sql"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// settleRun moves the Run of attempt id, which has just ended with end
// (cur is the attempt and its Run as read before), as the cluster's
// settleRun does: to retry_wait, with Attempt N + 1 created claimed and
// available once the backoff has passed, when the retry policy of the
// execution revision the Run was admitted with allows it (never after a
// cancel: the intent wins, and the Run ends cancelled — or timed_out when
// the deadline passed before the cancel was asked, or as the command did
// when it ended before the cancel was asked); else to the attempt's end. The event carries
// the attempt's number and outcome besides payload, and for a retry the
// next attempt and when it may start, as the cluster's does. finished is
// the state the call finished the Run in, "" when a retry follows.
func settleRun(ctx context.Context, tx *txn, id string, cur attemptRow, end run.AttemptState, payload map[string]any, now int64) (finished run.State, err error) {
	var number int
	var executor, commandJSON string
	if err := tx.QueryRowContext(ctx, qAttemptRetryFacts, id).Scan(&number, &executor, &commandJSON); err != nil {
		return "", err
	}
	cancelAtMs, deadlineAtMs, err := cancelAndDeadline(ctx, tx, id)
	if err != nil {
		return "", err
	}
	// The intent wins over a lost attempt (nobody knows when its command
	// ended), as on the cluster's sweep. Every other end was decided with
	// the cancel already (AttemptFinish, run.CancelDecidesResult): a cancel
	// asked before the deadline and the command's end made it cancelled,
	// one asked once the deadline had passed left it timed_out, one asked
	// once the command had ended left its result.
	if end == run.AttemptLost {
		end = run.EndAfterCancel(end, cancelAtMs, deadlineAtMs)
	}
	payload["attempt"], payload["outcome"] = number, string(end)
	// A stored command that does not decode was never run (its plan failed
	// verification): its result is still recorded, without a retry that
	// could only fail the same way.
	cmd, decodeErr := decodeCommandJSON(commandJSON)
	if decodeErr == nil && cancelAtMs == nil && cmd.Retry.Allows(string(end), number) {
		next, at := ids.New(), now+cmd.Retry.BackoffMs
		if _, err := tx.ExecContext(ctx, qAttemptRetryInsert, next, cur.runID, number+1, executor, at, now, id); err != nil {
			return "", err
		}
		payload["nextAttemptId"], payload["nextAttempt"], payload["availableAtMs"] = next, number+1, at
		_, err := transitionRun(ctx, tx, cur, run.RetryWait, run.EventRetryWait, payload, now)
		return "", err
	}
	to := finishedRun[end]
	fresh, err := transitionRun(ctx, tx, cur, to.state, to.event, payload, now)
	if err != nil || !fresh {
		return "", err
	}
	return to.state, nil
}

// RetriesRequeue queues the retry_wait Runs whose next attempt's backoff
// has passed, at most limit of them, the earliest first, each with event
// run.queued naming the attempt (reason retry), as the cluster's lease
// sweep does; the dispatcher then starts them as any queued Run. It
// writes only when one is due: the earliest backoff end is read first,
// one probe of an index, so a round with nothing due only reads. next is
// the time from now until the earliest backoff still running ends, zero
// when none runs: the caller's next round comes then, so a retry waits
// its backoff and no more.
func (s *Store) RetriesRequeue(ctx context.Context, limit int) (requeued int, next time.Duration, err error) {
	if limit < 1 || limit > run.MaxPageSize {
		return 0, 0, qlerror.New(qlerror.Invalid, "requeue retries: limit %d is outside 1–%d", limit, run.MaxPageSize)
	}
	earliest, err := s.earliestBackoff(ctx)
	if err != nil || earliest == nil {
		return 0, 0, err
	}
	if wait := *earliest - s.nowMs(); wait > 0 {
		return 0, time.Duration(wait) * time.Millisecond, nil
	}
	err = s.write(ctx, "queue retries whose backoff passed", routine, func(tx *txn) error {
		requeued = 0
		now := s.nowMs()
		type due struct {
			attemptID string
			number    int
			cur       attemptRow
		}
		var page []due
		rows, err := tx.QueryContext(ctx, qRetriesDue, now, limit)
		if err != nil {
			return err
		}
		for rows.Next() {
			d := due{cur: attemptRow{runState: run.RetryWait, state: run.AttemptClaimed}}
			if err := rows.Scan(&d.attemptID, &d.number, &d.cur.runID, &d.cur.runVersion, &d.cur.lastSeq); err != nil {
				rows.Close()
				return err
			}
			page = append(page, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, d := range page {
			res, err := tx.ExecContext(ctx, qAttemptClearBackoff, d.attemptID)
			if err != nil {
				return err
			}
			if err := exactlyOne(res, qlerror.Conflict, "attempt %s changed concurrently", d.attemptID); err != nil {
				return err
			}
			payload := map[string]any{"attemptId": d.attemptID, "attempt": d.number, "reason": "retry"}
			if _, err := transitionRun(ctx, tx, d.cur, run.Queued, run.EventQueued, payload, now); err != nil {
				return err
			}
			res, err = tx.ExecContext(ctx, qRunQueuedAgain, now, d.cur.runID)
			if err != nil {
				return err
			}
			if err := exactlyOne(res, qlerror.Conflict, "run %s changed concurrently", d.cur.runID); err != nil {
				return err
			}
			requeued++
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	if earliest, err = s.earliestBackoff(ctx); err != nil || earliest == nil {
		return requeued, 0, err
	}
	// A backoff already over (a full page left more) is waited for a
	// millisecond, not read as none running.
	return requeued, time.Duration(max(*earliest-s.nowMs(), 1)) * time.Millisecond, nil
}

// earliestBackoff is the earliest end of a backoff of an attempt waiting
// to retry, nil when none waits.
func (s *Store) earliestBackoff(ctx context.Context) (*int64, error) {
	var at sql.NullInt64
	if err := s.readPool().QueryRowContext(ctx, qRetriesNext).Scan(&at); err != nil {
		return nil, mapErr(err, "read the earliest retry backoff")
	}
	return ptr(at), nil
}

// cancelAndDeadline reads, for attempt id, when a cancel was first asked
// of its Run and when its deadline passed (nil: none, or not started), in
// the store's time, for run.CancelCameFirst.
func cancelAndDeadline(ctx context.Context, tx *txn, id string) (cancelAtMs, deadlineAtMs *int64, err error) {
	var cancelAt, deadline sql.NullInt64
	if err := tx.QueryRowContext(ctx, qAttemptCancelDeadline, id).Scan(&cancelAt, &deadline); err != nil {
		return nil, nil, err
	}
	if cancelAt.Valid {
		cancelAtMs = &cancelAt.Int64
	}
	if deadline.Valid {
		deadlineAtMs = &deadline.Int64
	}
	return cancelAtMs, deadlineAtMs, nil
}
