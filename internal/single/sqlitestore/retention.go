package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"sync"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/single/attemptlog"
)

// Retention is the store's retention.Store: the database and the
// directory of the attempts' log files (<attemptId>.log).
type Retention struct {
	store  *Store
	logDir string
	mu     sync.Mutex
	// last is this adapter's previous batch, for idle.
	last batchTurn
	// removed lists the attempts whose files this adapter removed and
	// whose names in retention_logs its next write deletes.
	removed []string
	// stopAfterCommit, set by tests only, stops a batch between its
	// commit and its removals, as a crash would.
	stopAfterCommit func() error
}

// batchTurn is a batch's turn on the writer: when it began, how long
// every turn had held the writer by then, and how long it took.
type batchTurn struct {
	began     time.Time
	heldSoFar int64
	took      time.Duration
}

// Retention returns the retention adapter over logDir.
func (s *Store) Retention(logDir string) *Retention {
	return &Retention{store: s, logDir: logDir}
}

var _ retention.Store = (*Retention)(nil)

// RetentionOptions pace retention on SQLite. Every batch holds the one
// writer admission needs, so while the server's other writes keep the
// writer busy the pass keeps its tenth of the time (the default share);
// while they leave it idle (idle), half of it (CatchUpShare), so a year
// of expired history goes in minutes rather than hours and still leaves
// the other half to writes that arrive meanwhile. Batches start at 16 and grow while they take
// under half the 25 ms target, up to 1,024 Runs or logs, shrinking back
// when one takes longer: a batch of 16 Runs spent most of its time on its
// statements and commit rather than its rows, and each of the cap's
// batches first sums every log still on disk. An admission waits for one
// batch at most, bounded in time and in rows.
var RetentionOptions = retention.Options{BatchSize: 16, MaxBatchSize: 1024, CatchUpShare: 0.5}

// idleBelow is the share of the time other writers may have held the
// writer since a pass's previous batch for the writer to count as idle.
const idleBelow = 0.25

// idle reports whether, between this adapter's previous batch and this
// one (began when the writer had been held heldSoFar in all, took long),
// the other writers held the writer less than idleBelow of the time. It
// sees this process's writers only: another process (a command on the
// same file) waits for one batch behind the busy timeout, and the
// catch-up share leaves it half the time.
func (r *Retention) idle(began time.Time, heldSoFar int64, took time.Duration) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	prev := r.last
	r.last = batchTurn{began: began, heldSoFar: heldSoFar, took: took}
	if prev.began.IsZero() {
		return false
	}
	others := time.Duration(heldSoFar-prev.heldSoFar) - prev.took
	return float64(others) < idleBelow*float64(began.Sub(prev.began)-prev.took)
}

// cutoff is the finish time before which a rule's age has passed.
func (r *Retention) cutoff(b retention.Batch) int64 {
	return r.store.nowMs() - b.OlderThan.Milliseconds()
}

// RetentionBatch deletes one batch in one BEGIN IMMEDIATE transaction.
// The log files of the attempts it deletes, or whose logs it forgets, are
// named in retention_logs in the same transaction and removed after the
// commit, outside the writer: a commit that fails leaves every row and
// file as they were, and a stop after it leaves the files named, for the
// next pass to remove first (RetentionFinish). No attempt ever names a
// file that is gone, and no file stays with nothing naming it. A file
// that cannot be removed stays named, is reported in the Result, and the
// batch goes on without it. The names of the files the previous batch
// removed go in this batch's transaction, which spares each batch a
// transaction of its own for them.
func (r *Retention) RetentionBatch(ctx context.Context, b retention.Batch) (retention.Result, error) {
	var res retention.Result
	var doomed []logFile
	var began time.Time
	var heldSoFar int64
	removed := r.takeRemoved()
	err := r.store.write(ctx, "retention "+string(b.Kind), routine, func(tx *txn) error {
		res, doomed = retention.Result{}, nil
		began, heldSoFar = time.Now(), r.store.writerHeld.Load()
		if len(removed) > 0 {
			if _, err := tx.ExecContext(ctx, qRetentionLogsRemoved, jsonList(removed)); err != nil {
				return err
			}
		}
		var err error
		switch b.Kind {
		case retention.KindRuns:
			res, doomed, err = r.runsBatch(ctx, tx, b)
		case retention.KindLogs:
			res, doomed, err = r.logsBatch(ctx, tx, r.cutoff(b), b.Limit, math.MaxInt64)
		case retention.KindLogBytes:
			var total int64
			if err := tx.QueryRowContext(ctx, qRetentionLogBytes).Scan(&total); err != nil {
				return err
			}
			running, rerr := r.runningLogBytes(ctx, tx)
			if rerr != nil {
				return rerr
			}
			total += running
			if total <= b.MaxLogBytes {
				return nil
			}
			res, doomed, err = r.logsBatch(ctx, tx, math.MaxInt64, b.Limit, total-b.MaxLogBytes)
			// A file that cannot be removed stays named and counted, and
			// the next batch takes the next oldest log in its place.
			res.More = res.Deleted.Logs > 0 && total-res.Deleted.LogBytes > b.MaxLogBytes
		case retention.KindNotifications:
			out, err := tx.ExecContext(ctx, qRetentionNotifications, r.cutoff(b), b.Limit)
			if err != nil {
				return err
			}
			if res.Deleted.Notifications, err = out.RowsAffected(); err != nil {
				return err
			}
			res.More = res.Deleted.Notifications == int64(b.Limit)
		case retention.KindSessions:
			out, err := tx.ExecContext(ctx, qRetentionSessions, r.store.nowMs(), b.Limit)
			if err != nil {
				return err
			}
			if res.Deleted.Sessions, err = out.RowsAffected(); err != nil {
				return err
			}
			res.More = res.Deleted.Sessions == int64(b.Limit)
		default:
			err = qlerror.New(qlerror.Invalid, "retention: unknown rule %q", b.Kind)
		}
		return err
	})
	if err != nil {
		r.giveBack(removed)
		return retention.Result{}, err
	}
	res.Held = time.Since(began)
	res.Idle = r.idle(began, heldSoFar, res.Held)
	if r.stopAfterCommit != nil {
		if err := r.stopAfterCommit(); err != nil {
			return res, err
		}
	}
	res.Kept = r.remove(doomed, len(doomed))
	return res, nil
}

// runsBatch deletes the batch's Runs with their attempts and events, and
// names their logs' files for removal; it returns those files.
func (r *Retention) runsBatch(ctx context.Context, tx *txn, b retention.Batch) (retention.Result, []logFile, error) {
	var res retention.Result
	ids, err := queryStrings(ctx, tx, qRetentionRunsBatch, r.cutoff(b), b.Limit)
	if err != nil || len(ids) == 0 {
		return res, nil, err
	}
	logs, err := r.logsOf(ctx, tx, qRetentionLogsOfRuns, jsonList(ids))
	if err != nil {
		return res, nil, err
	}
	if err := nameForRemoval(ctx, tx, logs, &res.Deleted); err != nil {
		return res, nil, err
	}
	list := jsonList(ids)
	d := &res.Deleted
	for _, step := range []struct {
		q string
		n *int64
	}{{qRetentionEventsDelete, &d.Events}, {qRetentionAttemptsDelete, &d.Attempts}, {qRetentionRunsDelete, &d.Runs}} {
		out, err := tx.ExecContext(ctx, step.q, list)
		if err != nil {
			return res, nil, err
		}
		if *step.n, err = out.RowsAffected(); err != nil {
			return res, nil, err
		}
	}
	if d.Runs != int64(len(ids)) {
		return res, nil, qlerror.New(qlerror.Conflict, "retention deleted %d of %d ended runs under the write lock", d.Runs, len(ids))
	}
	res.More = len(ids) == b.Limit
	return res, logs, nil
}

// logsBatch forgets the oldest logs of finished or lost Runs that ended
// before cutoff: at most limit, and no more than needed to free atLeast
// bytes. It names their files for
// removal and returns them.
func (r *Retention) logsBatch(ctx context.Context, tx *txn, cutoff int64, limit int, atLeast int64) (retention.Result, []logFile, error) {
	var res retention.Result
	logs, err := r.logsOf(ctx, tx, qRetentionLogsBatch, cutoff, limit)
	if err != nil || len(logs) == 0 {
		return res, nil, err
	}
	res.More = len(logs) == limit
	var freed int64
	for i, l := range logs {
		freed += l.bytes
		if freed >= atLeast {
			logs, res.More = logs[:i+1], false
			break
		}
	}
	if err := nameForRemoval(ctx, tx, logs, &res.Deleted); err != nil {
		return res, nil, err
	}
	if _, err := tx.ExecContext(ctx, qRetentionLogsForget, jsonList(attemptIDs(logs))); err != nil {
		return res, nil, err
	}
	return res, logs, nil
}

// jsonList is ids as the statements' JSON array argument: [] for none,
// never null, which json_each would read as one NULL id.
func jsonList(ids []string) string {
	b, _ := json.Marshal(append([]string{}, ids...)) // a []string always marshals
	return string(b)
}

// runningLogBytes is what the logs of the attempts still running take on
// disk now, counted from their files' sizes (retention.DiskBytes), since their log_bytes is written only when they
// end. The cap counts them and deletes none of them, so finished logs make
// room for them.
func (r *Retention) runningLogBytes(ctx context.Context, tx *txn) (int64, error) {
	ids, err := queryStrings(ctx, tx, qRetentionLogsRunning)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, id := range ids {
		fi, err := os.Stat(attemptlog.Path(r.logDir, id))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// Not created yet: the command has written nothing.
			continue
		case err != nil:
			return 0, qlerror.Wrap(qlerror.Unavailable, err, "read the size of the log of running attempt %s", id)
		}
		total += retention.DiskBytes(fi.Size())
	}
	return total, nil
}

type logFile struct {
	id, run string
	bytes   int64
}

func (r *Retention) logsOf(ctx context.Context, tx *txn, q string, args ...any) ([]logFile, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []logFile
	for rows.Next() {
		var l logFile
		if err := rows.Scan(&l.id, &l.bytes, &l.run); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

func queryStrings(ctx context.Context, tx *txn, q string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// RetentionEstimate counts, in one read snapshot, what a pass under p
// would delete now.
func (r *Retention) RetentionEstimate(ctx context.Context, p retention.Policy) (map[retention.Kind]retention.Deleted, error) {
	now := r.store.nowMs()
	runsCutoff, logsCutoff, notificationsCutoff := int64(math.MinInt64), int64(math.MinInt64), int64(math.MinInt64)
	if p.NotificationsAge != 0 {
		notificationsCutoff = now - p.NotificationsAge.Milliseconds()
	}
	if p.RunsAge != 0 {
		runsCutoff = now - p.RunsAge.Milliseconds()
	}
	if p.LogsAge != 0 {
		logsCutoff = now - p.LogsAge.Milliseconds()
	}
	var runs, logs retention.Deleted
	var total, running, notifications, sessions int64
	err := r.store.read(ctx, "retention estimate", func(tx *txn) error {
		// Every log is read only for a cap, the one rule that counts them all.
		capped := p.LogBytes != 0
		if err := tx.QueryRowContext(ctx, qRetentionEstimate, runsCutoff, logsCutoff, notificationsCutoff, capped, now).Scan(
			&runs.Runs, &runs.Attempts, &runs.Events, &runs.Logs, &runs.LogBytes, &logs.Logs, &logs.LogBytes, &total, &notifications, &sessions); err != nil {
			return err
		}
		if !capped {
			return nil
		}
		var err error
		running, err = r.runningLogBytes(ctx, tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return retention.Estimate(p, runs, logs, total+running, notifications, sessions), nil
}

// RetentionCompact gives the file's free pages back to the file system,
// 256 pages per step, each step its own turn on the writer so admissions
// interleave.
func (r *Retention) RetentionCompact(ctx context.Context) (int64, error) {
	var freed int64
	for {
		var free, pageSize, pages int64
		err := r.store.withWriter(ctx, routine, func() error {
			if err := r.store.writer.QueryRowContext(ctx, qPragmaFreelist).Scan(&free, &pageSize); err != nil || free == 0 {
				return err
			}
			var err error
			pages, err = countRows(r.store.writer.QueryContext(ctx, qPragmaIncrementalVacuum))
			return err
		})
		if err != nil {
			return freed, mapErr(err, "incremental vacuum")
		}
		freed += pages * pageSize
		if pages == 0 || pages >= free {
			return freed, nil
		}
	}
}

// countRows steps a statement to its end and counts its rows: for an
// incremental vacuum, the pages it gave back.
func countRows(rows *sql.Rows, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		n++
	}
	return n, rows.Err()
}

// Statements switching an existing file to incremental auto-vacuum.
const (
	setAutoVacuumIncremental = "PRAGMA auto_vacuum = INCREMENTAL"
	vacuumFile               = "VACUUM"
	autoVacuumIncremental    = 2
)

// ensureIncrementalVacuum makes the file keep freed pages on a free list
// that RetentionCompact gives back, instead of growing forever. A new
// file is switched before it holds anything; a file created before
// retention existed is switched by one VACUUM, which rewrites it once (in
// time and temporary disk space proportional to its size) and never again.
func (s *Store) ensureIncrementalVacuum(ctx context.Context) error {
	return s.withWriter(ctx, durable, func() error {
		var mode int
		if err := s.writer.QueryRowContext(ctx, qPragmaAutoVacuum).Scan(&mode); err != nil {
			return mapErr(err, "read auto_vacuum")
		}
		if mode == autoVacuumIncremental {
			return nil
		}
		if _, err := s.writer.ExecContext(ctx, setAutoVacuumIncremental); err != nil {
			return mapErr(err, "set auto_vacuum")
		}
		if _, err := s.writer.ExecContext(ctx, vacuumFile); err != nil {
			return mapErr(err, "vacuum "+s.cfg.Path+" once to switch it to incremental auto-vacuum")
		}
		return nil
	})
}
