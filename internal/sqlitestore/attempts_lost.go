package sqlitestore

import (
	"context"

	"github.com/qinglong/qinglong/internal/qlerror"
	"github.com/qinglong/qinglong/internal/run"
)

// AttemptOwners lists the executor owners holding starting or running
// attempts.
func (s *Store) AttemptOwners(ctx context.Context) ([]string, error) {
	rows, err := s.readPool().QueryContext(ctx, qAttemptLiveOwners)
	if err != nil {
		return nil, mapErr(err, "list attempt owners")
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			return nil, mapErr(err, "list attempt owners")
		}
		out = append(out, o)
	}
	return out, mapErr(rows.Err(), "list attempt owners")
}

// AttemptsLose marks every starting or running attempt of a dead owner
// lost, and its run lost with event run.lost, in one transaction. Nothing
// is re-queued: a lost run waits to be reconciled.
func (s *Store) AttemptsLose(ctx context.Context, owner string) (int, error) {
	var n int
	err := s.write(ctx, "mark attempts lost", durable, func(tx *txn) error {
		rows, err := tx.QueryContext(ctx, qAttemptsLiveOfOwner, owner)
		if err != nil {
			return err
		}
		var idList []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			idList = append(idList, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		now := s.nowMs()
		for _, id := range idList {
			cur, err := readAttempt(ctx, tx, id)
			if err != nil {
				return err
			}
			if err := run.CheckAttemptTransition(cur.state, run.AttemptLost); err != nil {
				return err
			}
			res, err := tx.ExecContext(ctx, qAttemptMarkFinished, string(run.AttemptLost), nil, ErrorCodeExecutorLost, now, 0, 0, id, string(cur.state))
			if err != nil {
				return err
			}
			if err := exactlyOne(res, qlerror.Conflict, "attempt %s changed concurrently", id); err != nil {
				return err
			}
			if err := transitionRun(ctx, tx, cur, run.Lost, run.EventLost, map[string]any{"attemptId": id, "errorCode": ErrorCodeExecutorLost}, now); err != nil {
				return err
			}
		}
		n = len(idList)
		return nil
	})
	return n, err
}
