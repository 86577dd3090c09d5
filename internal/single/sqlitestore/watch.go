package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
)

// CommitWatch tells whether anything was committed to the database file
// since it last looked, by any connection but its own — another process's
// (`ql apply`, `ql triggers run` on the same data directory) and this
// store's alike. It reads SQLite's data_version, which is per connection,
// so it keeps one connection of its own for its whole life, and that
// connection never writes. A look is one short read transaction, a few
// microseconds served from the WAL index in shared memory and the
// connection's cache while nothing changed.
//
// Its methods must not be called concurrently.
type CommitWatch struct {
	db   *sql.DB
	stmt *sql.Stmt
	last int64
}

// WatchCommits opens the watch's connection and reads the current
// version, so the first Changed reports the commits made after this call.
func (s *Store) WatchCommits(ctx context.Context) (*CommitWatch, error) {
	// The watch never reads a table, so the smallest page cache will do;
	// query_only makes sure the connection cannot commit (its own commits
	// would not change its data_version).
	dsn := fmt.Sprintf("%s&_pragma=busy_timeout(%d)&_pragma=cache_size(-%d)&_pragma=query_only(1)",
		existingFile(s.cfg.Path), s.cfg.BusyTimeout.Milliseconds(), MinCacheKiB)
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, mapErr(err, "open the commit watch on "+s.cfg.Path)
	}
	// One connection that never expires: data_version compares only
	// within one connection. Should database/sql replace a broken one,
	// the new connection's first value differs at most once, which only
	// reports a change that may not have happened.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	w := &CommitWatch{db: db}
	if w.stmt, err = db.PrepareContext(ctx, qPragmaDataVersion); err != nil {
		db.Close()
		return nil, mapErr(err, "prepare the commit watch on "+s.cfg.Path)
	}
	if w.last, err = w.version(ctx); err != nil {
		w.Close() //nolint:errcheck // the read error is the one returned
		return nil, err
	}
	return w, nil
}

// Changed reports whether another connection committed since the previous
// call (or since WatchCommits).
func (w *CommitWatch) Changed(ctx context.Context) (bool, error) {
	v, err := w.version(ctx)
	if err != nil {
		return false, err
	}
	changed := v != w.last
	w.last = v
	return changed, nil
}

func (w *CommitWatch) version(ctx context.Context) (int64, error) {
	var v int64
	if err := w.stmt.QueryRowContext(ctx).Scan(&v); err != nil {
		return 0, mapErr(err, "read the database's data version")
	}
	return v, nil
}

// Close closes the watch's connection.
func (w *CommitWatch) Close() error {
	_ = w.stmt.Close()
	return w.db.Close()
}
