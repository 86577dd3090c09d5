// Package journal is a worker's local record of what it was granted and
// what it started: one small SQLite file in the worker's data directory,
// held under an exclusive lock for the worker's whole life.
//
// Invariants:
//   - An offer (id, token) is recorded before its pull is sent, so a retry
//     of that pull can repeat it exactly and get the same grants.
//   - An attempt is recorded `launching` before its process is spawned, and
//     `running` with the process's pid and start after. A `launching` or
//     `running` record found when the worker starts is never spawned again:
//     Recover marks it `abandoned` (its process may have run, perhaps still
//     runs), and returns it with its lease (the offer's token and the last
//     lease version journaled) so the restarted worker can end it on the
//     replica under that lease, instead of leaving it to the lease sweep.
//   - A `granted` record found when the worker starts was never spawned
//     (`launching` is journaled before any spawn): Recover marks it
//     `abandoned` too and returns it with its lease, so the restarted
//     worker can give the grant back under that lease at once.
//   - A lease version is journaled before any request carries it, so the
//     replica's version is never more than one ahead of the journal's: a
//     renewal whose reply was lost is replayed with the journaled version
//     and answered the current one.
//   - Only one worker uses a data directory at a time: the lock is a flock
//     the kernel drops when the process dies, however it dies.
package journal

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	_ "modernc.org/sqlite" // the journal's driver: pure Go, no cgo

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Attempt states.
const (
	StateGranted   = "granted"   // leased to this worker, nothing spawned
	StateLaunching = "launching" // about to be spawned (or spawned, pid not yet recorded)
	StateRunning   = "running"   // spawned: Pid and StartedAtMs are set
	StateDone      = "done"      // completed, stopped or given up by this worker
	StateAbandoned = "abandoned" // found launching or running at start: never spawned again
)

// File names inside the data directory.
const (
	FileName = "journal.db"
	lockName = "worker.lock"
)

// keepDone bounds how long finished offers and attempts stay in the file.
const keepDone = 7 * 24 * time.Hour

// Offer is one pull's identity: the replica answers a repeated (ID, Token)
// with the grants it made the first time.
type Offer struct {
	ID    string
	Token string
}

// Attempt is one journaled attempt.
type Attempt struct {
	ID          string
	RunID       string
	OfferID     string
	State       string
	Pid         int
	StartedAtMs int64
	// Token is the lease token (its offer's) and LeaseVersion the last
	// lease version journaled (see Renewed).
	Token        string
	LeaseVersion int64
}

// Journal is an open, locked journal.
type Journal struct {
	db   *sql.DB
	lock *os.File
	dir  string
}

// Open locks dir's journal and opens it, creating both when missing. A
// directory another live worker holds is refused.
func Open(ctx context.Context, dir string) (*Journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the worker data directory %s: %w; choose another --data-dir or fix its permissions", dir, err)
	}
	lockPath := filepath.Join(dir, lockName)
	lock, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the worker lock %s: %w", lockPath, err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(lockPath)
		lock.Close() //nolint:errcheck // the lock error is the one returned
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := "another worker"
			if pid := strings.TrimSpace(string(holder)); pid != "" {
				who += " (pid " + pid + ")"
			}
			// A conflict with what exists, as a second server on a data
			// directory is: the command exits 4.
			return nil, qlerror.New(qlerror.Conflict, "%s already uses the data directory %s; stop it, or give this worker its own --data-dir", who, dir)
		}
		return nil, fmt.Errorf("lock %s: %w; the filesystem must support flock", lockPath, err)
	}
	if err := writePid(lock); err != nil {
		lock.Close() //nolint:errcheck // the write error is the one returned
		return nil, openFailed(dir, fmt.Errorf("write the worker lock %s: %w", lockPath, err))
	}
	j := &Journal{lock: lock, dir: dir}
	if j.db, err = openDB(ctx, filepath.Join(dir, FileName)); err != nil {
		lock.Close() //nolint:errcheck // the open error is the one returned
		return nil, openFailed(dir, err)
	}
	return j, nil
}

func writePid(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}

const schema = `
CREATE TABLE IF NOT EXISTS offers (
	offer_id      TEXT PRIMARY KEY,
	token         TEXT NOT NULL,
	answered      INTEGER NOT NULL DEFAULT 0,
	created_at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS attempts (
	attempt_id    TEXT PRIMARY KEY,
	run_id        TEXT NOT NULL,
	offer_id      TEXT NOT NULL,
	state         TEXT NOT NULL CHECK (state IN ('granted','launching','running','done','abandoned')),
	pid           INTEGER NOT NULL DEFAULT 0,
	started_at_ms INTEGER NOT NULL DEFAULT 0,
	outcome       TEXT NOT NULL DEFAULT '',
	launched      INTEGER NOT NULL DEFAULT 0,
	updated_at_ms INTEGER NOT NULL,
	lease_version INTEGER NOT NULL DEFAULT 1
);`

// addLeaseVersion gives a journal written before lease versions were
// journaled their column; its records read version 1, the version of every
// grant, so a restarted worker's report of an attempt that was renewed
// since is refused as stale and the attempt is left to its lease, as
// before.
const addLeaseVersion = `ALTER TABLE attempts ADD COLUMN lease_version INTEGER NOT NULL DEFAULT 1`

func openDB(ctx context.Context, path string) (*sql.DB, error) {
	if err := restrict(path); err != nil {
		return nil, err
	}
	// synchronous(NORMAL) in WAL mode: a commit is in the WAL (the kernel's
	// page cache) before the spawn it announces, so a crash of the worker
	// process, however it dies, never loses it. Only a crash of the whole
	// machine can drop the last commits, and that ends every command they
	// announced too: nothing is left to abandon or end. An fsync per record
	// (FULL) bought nothing more, and capped a worker at a few dozen
	// commands a second on a busy disk.
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open the worker journal %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		if DiskFull(filepath.Dir(path), err) {
			// Not damaged: Open says the disk is full and what to do.
			return nil, fmt.Errorf("open the worker journal %s: %w", path, err)
		}
		return nil, fmt.Errorf("open the worker journal %s: %w; if the file is damaged, move it away (the replicas settle what it held)", path, err)
	}
	var versioned int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('attempts') WHERE name = 'lease_version'`).Scan(&versioned); err != nil {
		db.Close()
		return nil, fmt.Errorf("open the worker journal %s: %w", path, err)
	}
	if versioned == 0 {
		if _, err := db.ExecContext(ctx, addLeaseVersion); err != nil {
			db.Close()
			return nil, fmt.Errorf("open the worker journal %s: add its lease versions: %w; if the file is damaged, move it away (the replicas settle what it held)", path, err)
		}
	}
	return db, nil
}

// Close closes the file and releases the lock. The lock is dropped by
// LOCK_UN, not only by the close: a process forked in that moment holds a
// copy of the descriptor until it executes its program, close-on-exec
// acting only then, and a flock lasts while any copy is open, so a worker
// started right after would be refused.
func (j *Journal) Close() error {
	dbErr := j.db.Close()
	unlockErr := syscall.Flock(int(j.lock.Fd()), syscall.LOCK_UN)
	return errors.Join(dbErr, unlockErr, j.lock.Close())
}

func nowMs() int64 { return time.Now().UnixMilli() }

// NewOffer records a fresh offer: a random UUID and 32 random bytes.
func (j *Journal) NewOffer(ctx context.Context) (Offer, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return Offer{}, err
	}
	o := Offer{ID: uuid.NewString(), Token: base64.RawURLEncoding.EncodeToString(raw)}
	_, err := j.db.ExecContext(ctx, `INSERT INTO offers (offer_id, token, created_at_ms) VALUES (?, ?, ?)`, o.ID, o.Token, nowMs())
	if err != nil {
		return Offer{}, fmt.Errorf("journal an offer: %w", err)
	}
	return o, nil
}

// Granted is one grant of an answered offer.
type Granted struct {
	AttemptID    string
	RunID        string
	LeaseVersion int64
}

// Answered records the grants the replica made for offer o, each as a
// `granted` attempt, in one transaction. A replayed answer changes nothing.
// A grant of an attempt this worker already gave up before spawning it (its
// start was never acknowledged, so the replica released the grant and
// offered it again, here under a new offer) is granted afresh; a record
// that was launched (it has a pid or a start) is never reset.
func (j *Journal) Answered(ctx context.Context, o Offer, grants []Granted) error {
	tx, err := j.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("journal the grants of offer %s: %w", o.ID, err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	now := nowMs()
	// An idle worker's long-polls end empty every few seconds; an offer
	// that granted nothing has nothing left to prove.
	q := `UPDATE offers SET answered = 1 WHERE offer_id = ?`
	if len(grants) == 0 {
		q = `DELETE FROM offers WHERE offer_id = ?`
	}
	if _, err := tx.ExecContext(ctx, q, o.ID); err != nil {
		return fmt.Errorf("journal the grants of offer %s: %w", o.ID, err)
	}
	for _, g := range grants {
		// The replica offers an attempt again when its grant expired
		// unstarted, so a finished record that never launched is granted
		// afresh; one that launched stays as it is, and Launching then
		// refuses it: it is never spawned twice.
		if _, err := tx.ExecContext(ctx, `INSERT INTO attempts (attempt_id, run_id, offer_id, state, updated_at_ms, lease_version) VALUES (?, ?, ?, 'granted', ?, ?)
			ON CONFLICT (attempt_id) DO UPDATE SET offer_id = excluded.offer_id, state = 'granted', outcome = '', updated_at_ms = excluded.updated_at_ms,
				lease_version = excluded.lease_version
			WHERE attempts.launched = 0 AND attempts.state IN ('granted', 'done', 'abandoned') AND attempts.offer_id <> excluded.offer_id`,
			g.AttemptID, g.RunID, o.ID, now, max(g.LeaseVersion, 1)); err != nil {
			return fmt.Errorf("journal grant %s: %w", g.AttemptID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("journal the grants of offer %s: %w", o.ID, err)
	}
	return nil
}

// transition runs one state change of attempt id and checks that it
// applied: the record was in the state the change starts from.
func (j *Journal) transition(ctx context.Context, id, to, query string, args ...any) error {
	res, err := j.db.ExecContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("journal attempt %s as %s: %w", id, to, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("journal attempt %s as %s: %w", id, to, err)
	}
	if n != 1 {
		return fmt.Errorf("journal attempt %s as %s: its record is missing or past that state", id, to)
	}
	return nil
}

// ErrLaunchedBefore is Launching's refusal of an attempt this worker
// launched before: the journal is sound, but the attempt must never be
// spawned twice. A replica offers such an attempt again only when its
// database lost the start, typically one restored from a backup taken
// before it.
var ErrLaunchedBefore = errors.New("this worker started the attempt before (its journal records the launch), so it is not started a second time")

// Launching records that attempt id is about to be spawned. It must
// return before the spawn: a crash after it never spawns the attempt
// again.
func (j *Journal) Launching(ctx context.Context, id string) error {
	err := j.transition(ctx, id, StateLaunching,
		`UPDATE attempts SET state = 'launching', launched = 1, updated_at_ms = ? WHERE attempt_id = ? AND state = 'granted'`, nowMs(), id)
	if err == nil {
		return nil
	}
	var launched int
	if qerr := j.db.QueryRowContext(ctx, `SELECT launched FROM attempts WHERE attempt_id = ?`, id).Scan(&launched); qerr == nil && launched == 1 {
		return fmt.Errorf("journal attempt %s as %s: %w", id, StateLaunching, ErrLaunchedBefore)
	}
	return err
}

// Running records the spawned process: its pid (its process group) and the
// instant taken just before the spawn, which recovery uses to tell the
// command's process from one that reused its pid.
func (j *Journal) Running(ctx context.Context, id string, pid int, startedAtMs int64) error {
	return j.transition(ctx, id, StateRunning,
		`UPDATE attempts SET state = 'running', pid = ?, started_at_ms = ?, updated_at_ms = ? WHERE attempt_id = ? AND state = 'launching'`,
		pid, startedAtMs, nowMs(), id)
}

// Renewed records the lease version the replica answered for attempt id.
// It must return before a request carries that version: then the replica
// is never more than one version ahead of the journal (see Recover).
func (j *Journal) Renewed(ctx context.Context, id string, version int64) error {
	return j.transition(ctx, id, "renewed",
		`UPDATE attempts SET lease_version = ? WHERE attempt_id = ? AND state IN ('granted', 'launching', 'running')`, version, id)
}

// Done records that this worker is finished with attempt id; outcome says
// how (for the operator reading the file).
func (j *Journal) Done(ctx context.Context, id, outcome string) error {
	return j.transition(ctx, id, StateDone,
		`UPDATE attempts SET state = 'done', outcome = ?, updated_at_ms = ? WHERE attempt_id = ? AND state IN ('granted', 'launching', 'running')`,
		outcome, nowMs(), id)
}

// Recover marks every unfinished attempt of an earlier worker process
// abandoned and returns each with the lease it was granted or run under
// (its offer's token, the last lease version journaled), ordered by id:
// those launching or running, with the pid and start a running one
// recorded, and those granted, which were never spawned. Nothing is
// spawned again: the worker ends what is left of a launching or running
// command and reports the attempt to the replica under that lease, and
// gives a granted one back under its lease; what it cannot settle is left
// to the replica's lease sweep. Finished records older than a week are
// removed.
func (j *Journal) Recover(ctx context.Context) ([]Attempt, error) {
	left, err := j.recover(ctx)
	return left, openFailed(j.dir, err)
}

func (j *Journal) recover(ctx context.Context) ([]Attempt, error) {
	tx, err := j.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("recover the worker journal: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	rows, err := tx.QueryContext(ctx, `SELECT a.attempt_id, a.run_id, a.offer_id, a.state, a.pid, a.started_at_ms, coalesce(o.token, ''), a.lease_version
		FROM attempts a LEFT JOIN offers o ON o.offer_id = a.offer_id
		WHERE a.state IN ('granted', 'launching', 'running') ORDER BY a.attempt_id`)
	if err != nil {
		return nil, fmt.Errorf("recover the worker journal: %w", err)
	}
	var out []Attempt
	for rows.Next() {
		var a Attempt
		if err := rows.Scan(&a.ID, &a.RunID, &a.OfferID, &a.State, &a.Pid, &a.StartedAtMs, &a.Token, &a.LeaseVersion); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	now := nowMs()
	old := now - keepDone.Milliseconds()
	// An offer of the earlier process whose answer never arrived belonged
	// to its session: its grants, if any, go back to the queue when the
	// restarted worker's registration replaces that session, or else when
	// their lease passes.
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE attempts SET state = 'abandoned', updated_at_ms = ? WHERE state IN ('granted', 'launching', 'running')`, []any{now}},
		{`UPDATE offers SET answered = 1 WHERE answered = 0`, nil},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			return nil, fmt.Errorf("recover the worker journal: %w", err)
		}
	}
	if err := trim(ctx, tx, old); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("recover the worker journal: %w", err)
	}
	return out, nil
}

// Trim removes finished attempts and answered offers older than a week,
// so a long-lived worker's journal stays small.
func (j *Journal) Trim(ctx context.Context) error {
	return trim(ctx, j.db, nowMs()-keepDone.Milliseconds())
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func trim(ctx context.Context, db execer, beforeMs int64) error {
	for _, q := range []string{
		`DELETE FROM attempts WHERE state IN ('done', 'abandoned') AND updated_at_ms < ?`,
		`DELETE FROM offers WHERE answered = 1 AND created_at_ms < ?
			AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.offer_id = offers.offer_id)`,
	} {
		if _, err := db.ExecContext(ctx, q, beforeMs); err != nil {
			return fmt.Errorf("trim the worker journal: %w", err)
		}
	}
	return nil
}

// Get reads attempt id.
func (j *Journal) Get(ctx context.Context, id string) (Attempt, error) {
	var a Attempt
	err := j.db.QueryRowContext(ctx, `SELECT attempt_id, run_id, offer_id, state, pid, started_at_ms FROM attempts WHERE attempt_id = ?`, id).
		Scan(&a.ID, &a.RunID, &a.OfferID, &a.State, &a.Pid, &a.StartedAtMs)
	if err != nil {
		return Attempt{}, fmt.Errorf("read attempt %s from the journal: %w", id, err)
	}
	return a, nil
}
