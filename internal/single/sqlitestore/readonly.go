package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// OpenReadOnly opens an existing database file for reading only, for
// commands that list and show. Every connection opens the file with
// mode=ro, where SQLite refuses any write whatever a statement or pragma
// asks, and with query_only: reading works on a file the process may read
// but not write, and cannot change it. Call ReadyToRead before reading;
// writes through the store fail.
func OpenReadOnly(ctx context.Context, cfg Config) (*Store, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(cfg.Path)
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Invalid, err, "sqlite path %s", cfg.Path)
	}
	open, err := lockOpen(abs, true)
	if err != nil {
		return nil, err
	}
	s, err := openReading(ctx, cfg, abs)
	if err != nil {
		open.release() //nolint:errcheck // the open's error is the one returned
		return nil, err
	}
	s.open = open
	return s, nil
}

// openReading opens the read-only store's pools on the file at abs.
func openReading(ctx context.Context, cfg Config, abs string) (*Store, error) {
	dsn := fmt.Sprintf("file:%s?mode=ro&_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=cache_size(-%d)&_pragma=query_only(1)",
		(&url.URL{Path: abs}).EscapedPath(), cfg.BusyTimeout.Milliseconds(), cfg.CacheKiB)
	// Read before the open: a failed one on a full disk leaves an empty
	// -wal of its own.
	_, walErr := os.Stat(abs + "-wal")
	reader, err := openReadPool(ctx, dsn, cfg.ReadConns)
	if err != nil && canReadImmutable(err, abs, errors.Is(walErr, fs.ErrNotExist)) {
		// A WAL database needs its -shm file even to be read; with the
		// server stopped there is none, and an unwritable directory means
		// none can be made. No -wal file means no process has the file
		// open, so its main file holds every committed write: read it as
		// it stands, without locks. A server starting meanwhile writes to
		// a new -wal first, which such a reader does not see.
		dsn += "&immutable=1"
		reader, err = openReadPool(ctx, dsn, cfg.ReadConns)
	}
	if isNotADatabase(err) {
		return nil, mapErr(err, "open SQLite database "+cfg.Path)
	}
	if err != nil {
		// A reader too needs room for the -shm file beside a database a
		// server left in WAL mode; on a full disk SQLite says only "disk
		// I/O error", which sends the user to the file's permissions.
		if room, known := roomLeft(filepath.Dir(abs)); known && room < fullDiskRoom {
			return nil, openRefused(err, "open", cfg.Path, room, known)
		}
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "open SQLite database %s read-only; check that it exists and is readable", cfg.Path)
	}
	// A one-connection pool in the writer's place keeps the store's
	// invariants; anything that tries to write through it fails.
	writer, err := openReadPool(ctx, dsn, 1)
	if err != nil {
		reader.Close()
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "open SQLite database %s read-only", cfg.Path)
	}
	s := &Store{cfg: cfg, writer: writer, reader: reader, nowMs: cfg.NowMs, writerTurn: make(chan struct{}, 1)}
	s.prepared.Store(&statements{})
	return s, nil
}

func openReadPool(ctx context.Context, dsn string, conns int) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// canReadImmutable reports whether a read-only open failed only for want
// of the -shm file (which SQLite cannot create next to the database: the
// directory is not writable, or its disk is full) while no -wal file shows
// a process using the database before the open was tried (noWAL).
func canReadImmutable(err error, path string, noWAL bool) bool {
	switch primaryCode(err) {
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN:
	case sqlite3.SQLITE_IOERR:
		// A full disk leaves no room for the -shm file: SQLite says
		// only "disk I/O error", and the file, with no -wal beside it,
		// holds every commit as well.
		if room, known := roomLeft(filepath.Dir(path)); !known || room >= fullDiskRoom {
			return false
		}
	default:
		return false
	}
	if _, err := os.Stat(path); err != nil {
		return false
	}
	return noWAL
}

// ReadyToRead is the readiness check of a read-only store: the schema
// history, capability and schema exactly as Ready checks them. The journal
// mode and the write lock are the writer's concern, and a file read as it
// stands reports no WAL.
func (s *Store) ReadyToRead(ctx context.Context) error { return s.schemaReady(ctx) }
