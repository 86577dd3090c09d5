package sqlitestore

import (
	"context"
	"database/sql"
	"os"

	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/single/attemptlog"
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
// lost, recording the size its log file holds, in one transaction, and
// returns them (ID, PID, StartedAtMs) as they were, with the Runs this
// call finished (lost; run.Finishes). Each Run goes to retry_wait when its
// retry policy retries a lost attempt (settleRun), else lost with event
// run.lost: a lost run waits to be reconciled.
func (s *Store) AttemptsLose(ctx context.Context, owner string) ([]run.Attempt, run.FinishCounts, error) {
	var lost []run.Attempt
	var finished run.FinishCounts
	err := s.write(ctx, "mark attempts lost", durable, func(tx *txn) error {
		lost, finished = nil, run.FinishCounts{}
		var logged []bool
		rows, err := tx.QueryContext(ctx, qAttemptsLiveOfOwner, owner)
		if err != nil {
			return err
		}
		for rows.Next() {
			var a run.Attempt
			var started sql.NullInt64
			var logPath string
			if err := rows.Scan(&a.ID, &a.PID, &started, &logPath); err != nil {
				rows.Close()
				return err
			}
			a.StartedAtMs = ptr(started)
			lost = append(lost, a)
			logged = append(logged, logPath != "")
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		now := s.nowMs()
		for i, a := range lost {
			id := a.ID
			cur, err := readAttempt(ctx, tx, id)
			if err != nil {
				return err
			}
			if err := run.CheckAttemptTransition(cur.state, run.AttemptLost); err != nil {
				return err
			}
			var size int64
			if logged[i] {
				// The stored path is where the log was created, maybe
				// another data directory this one was copied from: the
				// file is this directory's (attemptlog).
				path := attemptlog.Path(s.cfg.LogDir, id)
				closeLostLog(path)
				size = logSize(path)
			}
			res, err := tx.ExecContext(ctx, qAttemptMarkFinished, string(run.AttemptLost), nil, ErrorCodeExecutorLost, now, size, 0, id, string(cur.state), "")
			if err != nil {
				return err
			}
			if err := exactlyOne(res, qlerror.Conflict, "attempt %s changed concurrently", id); err != nil {
				return err
			}
			state, err := settleRun(ctx, tx, id, cur, run.AttemptLost, map[string]any{"attemptId": id, "errorCode": ErrorCodeExecutorLost}, now)
			if err != nil {
				return err
			}
			finished.Add(state)
		}
		return nil
	})
	if err != nil {
		return lost, run.FinishCounts{}, err
	}
	return lost, finished, nil
}

// closeLostLog ends the log file at path, when there is one, with the
// line saying its server stopped without ending the command
// (process.LostLine): the command wrote through a pipe to that server, so
// nothing has written the file since it died, nor will. It is written
// before the transaction that records the attempt lost, and the size is
// read after it, which counts it, so the line is there whenever the
// attempt is recorded lost. A recovery that fails after it leaves the
// line, so a log that already ends with it is left as it is: the next
// recovery, or a retry of the transaction, does not add it again. A file
// that cannot be written is left as it is.
func closeLostLog(path string) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return
	}
	// The line is best effort, as the write's own error says: a close
	// that fails after it changes nothing a reader could be told.
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return
	}
	line := process.LostLine(false)
	if fi.Size() >= int64(len(line)) {
		tail := make([]byte, len(line))
		if _, err := f.ReadAt(tail, fi.Size()-int64(len(line))); err != nil || string(tail) == line {
			return
		}
	}
	last := []byte{'\n'}
	if fi.Size() > 0 {
		if _, err := f.ReadAt(last, fi.Size()-1); err != nil {
			return
		}
	}
	_, _ = f.WriteString(process.LostLine(last[0] != '\n'))
}

// logSize is what a lost attempt's log file holds now: its command died
// with its owner without reporting it, and the retention cap counts an
// ended attempt's log by the size it records. A file never created, or
// not readable, held nothing the cap could count.
func logSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
