package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/qinglong/qinglong/internal/core/hold"
)

// Durability of a write. Every commit is atomic and survives a crash of
// the process; what differs is a power loss, which may roll back the last
// commits made at synchronous=NORMAL (WAL frames not yet fsynced) but never
// one made at FULL — and a FULL commit's fsync makes every earlier commit in
// the WAL durable with it.
type durability bool

const (
	// routine commits (schedule decisions, attempt progress) may be rolled
	// back by a power loss: the decision is simply taken again, the same
	// occurrence gets the same idempotency key, and an attempt whose start
	// is durable but whose result is not becomes lost on restart.
	routine durability = false
	// durable commits (definitions, migrations, an attempt's start) are on
	// disk when the call returns. No command starts before its admission
	// and its start are durable, so a power loss can undo an admission only
	// if nothing ran for it.
	durable durability = true
)

// Pragmas switching the writer between the two durabilities.
const (
	syncNormal = "PRAGMA synchronous = NORMAL"
	syncFull   = "PRAGMA synchronous = FULL"
)

// write runs fn in one BEGIN IMMEDIATE transaction on the single writer
// connection: the file's write lock is taken up front, so nothing fn reads
// can change before it commits. fn's error rolls everything back.
func (s *Store) write(ctx context.Context, what string, d durability, fn func(tx *txn) error) error {
	return s.withWriter(ctx, d, func() error {
		tx, err := s.begin(ctx)
		if err != nil {
			return mapErr(err, what)
		}
		if err := fn(tx); err != nil {
			_ = tx.Rollback()
			return mapErr(err, what)
		}
		if err := tx.Commit(); err != nil {
			return mapErr(err, what+": commit")
		}
		return nil
	})
}

// withWriter gives fn the writer connection exclusively, at durability d:
// the switch to FULL and back must not interleave with another goroutine's
// transaction.
func (s *Store) withWriter(ctx context.Context, d durability, fn func() error) error {
	start := time.Now()
	select {
	case s.writerTurn <- struct{}{}:
	case <-ctx.Done():
		// The write ahead, still beginning, waits for another process's
		// lock: that is what this one waited for too.
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && s.beginning.Load() {
			return hold.DatabaseLocked(s.cfg.Path, time.Since(start))
		}
		return ctx.Err()
	}
	held := time.Now()
	defer func() {
		s.writerHeld.Add(int64(time.Since(held)))
		<-s.writerTurn
	}()
	if d == routine {
		return s.noteCorrupt(fn())
	}
	if _, err := s.writer.ExecContext(ctx, syncFull); err != nil {
		return s.noteCorrupt(mapErr(err, "switch to synchronous commits"))
	}
	err := s.noteCorrupt(fn())
	// Restoring NORMAL only affects speed: a connection left at FULL is
	// slower, never less safe.
	_, _ = s.writer.ExecContext(context.WithoutCancel(ctx), syncNormal)
	return err
}

// begin begins a write transaction, which takes the file's write lock.
// While another process holds it, SQLite waits for the busy timeout and
// then fails; a caller with a deadline (an API request, a console page)
// waits until its deadline instead, so its own time limit bounds the whole
// wait, and learns what it waited for (hold.DatabaseLocked), where it got
// a lock error after the busy timeout or a bare context error before it,
// whichever came first. A caller without one (the scheduler's rounds, a
// command on the database path) keeps the busy timeout.
func (s *Store) begin(ctx context.Context) (*txn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.beginning.Store(true)
	defer s.beginning.Store(false)
	start := time.Now()
	for {
		try := time.Now()
		tx, err := s.writer.BeginTx(ctx, nil)
		if err == nil {
			return &txn{Tx: tx, stmts: s.prepared.Load().writer, logDir: s.cfg.LogDir}, nil
		}
		_, bounded := ctx.Deadline()
		busy := primaryCode(err) == sqlite3.SQLITE_BUSY
		switch {
		case !bounded || errors.Is(ctx.Err(), context.Canceled) || !busy && !errors.Is(err, context.DeadlineExceeded):
			return nil, err
		// Waited out the busy timeout with time left: wait again. A
		// refusal that came sooner is no wait for a lock, and stands.
		case ctx.Err() == nil && time.Since(try) >= s.cfg.BusyTimeout/2:
			continue
		case ctx.Err() == nil:
			return nil, err
		}
		return nil, hold.DatabaseLocked(s.cfg.Path, time.Since(start))
	}
}

// read runs fn in one read-only transaction, so the rows it reads come
// from one snapshot.
func (s *Store) read(ctx context.Context, what string, fn func(tx *txn) error) error {
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return s.noteCorrupt(mapErr(err, what))
	}
	defer func() { _ = tx.Rollback() }()
	return s.noteCorrupt(mapErr(fn(&txn{Tx: tx, stmts: s.prepared.Load().reader}), what))
}

// statements are the domain statements prepared once per pool. Parsing SQL
// is a third of an admission's CPU time with modernc's driver, and
// database/sql re-prepares a plain query string on every call.
type statements struct {
	writer, reader map[string]*sql.Stmt
}

// prepareAll prepares every domain statement on its pool. It runs once
// the schema is known to be exact (after a successful Ready); before that,
// queries run unprepared.
func (s *Store) prepareAll(ctx context.Context) error {
	if s.prepared.Load().writer != nil {
		return nil
	}
	p := &statements{}
	var err error
	if p.writer, err = prepare(ctx, s.writer, writeQueries); err != nil {
		return err
	}
	if p.reader, err = prepare(ctx, s.reader, readQueries); err != nil {
		return err
	}
	s.prepared.Store(p)
	return nil
}

func prepare(ctx context.Context, db *sql.DB, queries []string) (map[string]*sql.Stmt, error) {
	out := make(map[string]*sql.Stmt, len(queries))
	for _, q := range queries {
		st, err := db.PrepareContext(ctx, q)
		if err != nil {
			return nil, err
		}
		out[q] = st
	}
	return out, nil
}

// closeStatements releases the prepared statements before the pools close.
func (s *Store) closeStatements() {
	p := s.prepared.Load()
	for _, m := range []map[string]*sql.Stmt{p.writer, p.reader} {
		for _, st := range m {
			_ = st.Close()
		}
	}
}

// preparedPtr holds the prepared statements; empty until prepareAll.
type preparedPtr = atomic.Pointer[statements]

// txn is a transaction that runs a known statement through its prepared
// form and anything else (migrations) as plain SQL. A page of decisions
// runs the same few statements hundreds of times in one transaction, so
// each is bound to the transaction once (bound) rather than per call.
type txn struct {
	*sql.Tx
	stmts map[string]*sql.Stmt
	bound map[string]*sql.Stmt
	// logDir is the store's Config.LogDir, for the writes that read an
	// attempt's log in their transaction (a notification's output).
	logDir string
}

// stmt is q's prepared statement bound to this transaction, or nil when q
// is not a known statement.
func (t *txn) stmt(ctx context.Context, q string) *sql.Stmt {
	if st, ok := t.bound[q]; ok {
		return st
	}
	st, ok := t.stmts[q]
	if !ok {
		return nil
	}
	if t.bound == nil {
		t.bound = make(map[string]*sql.Stmt)
	}
	st = t.StmtContext(ctx, st)
	t.bound[q] = st
	return st
}

func (t *txn) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if st := t.stmt(ctx, q); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return t.Tx.ExecContext(ctx, q, args...)
}

func (t *txn) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := t.stmt(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return t.Tx.QueryContext(ctx, q, args...)
}

func (t *txn) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if st := t.stmt(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.Tx.QueryRowContext(ctx, q, args...)
}

// pool runs a known statement through its prepared form on the read pool.
type pool struct {
	db    *sql.DB
	stmts map[string]*sql.Stmt
}

func (s *Store) readPool() pool { return pool{db: s.reader, stmts: s.prepared.Load().reader} }

func (p pool) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st, ok := p.stmts[q]; ok {
		return st.QueryContext(ctx, args...)
	}
	return p.db.QueryContext(ctx, q, args...)
}

func (p pool) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if st, ok := p.stmts[q]; ok {
		return st.QueryRowContext(ctx, args...)
	}
	return p.db.QueryRowContext(ctx, q, args...)
}
