package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"

	// The pure-Go driver keeps edge builds free of cgo, so they
	// cross-compile for linux/arm and linux/arm64 with a plain go build.
	_ "modernc.org/sqlite"
)

// Defaults and limits of Config.
const (
	DefaultBusyTimeout = 5 * time.Second
	MaxBusyTimeout     = time.Minute
	DefaultReadConns   = 4
	MaxReadConns       = 64
	DefaultCacheKiB    = 2048
	MinCacheKiB        = 64
	MaxCacheKiB        = 1 << 20
	// DefaultWALPages is SQLite's own automatic checkpoint threshold
	// (4 MiB of 4 KiB pages); MinWALPages keeps a checkpoint from running
	// at almost every commit.
	DefaultWALPages = 1000
	MinWALPages     = 64
	MaxWALPages     = 1 << 16
	// DefaultLogDirName is the log directory's name in a data directory.
	DefaultLogDirName = "qinglong-logs"
)

// Config opens one database file.
type Config struct {
	// Path of the database file; created (with its WAL) if missing.
	Path string
	// LogDir holds the attempts' log files, <attemptId>.log (default:
	// qinglong-logs beside Path, the data directory's). A lost attempt's
	// log is ended there and a notification's output read from there, by
	// the attempt's id: never at the path an attempt's row stored, which
	// names the data directory a backup was copied from (attemptlog).
	LogDir string
	// NowMs is the store's only clock: the observation time of a take and
	// every time the store stamps. Injected so tests control time and no
	// decision ever reads the wall clock itself.
	NowMs func() int64
	// BusyTimeout is how long a write waits for another process holding
	// the file's write lock (default 5 s, at most 1 min).
	BusyTimeout time.Duration
	// ReadConns sizes the read-only pool (default 4, 1–64).
	ReadConns int
	// CacheKiB is each connection's page cache (default 2048 KiB,
	// 64 KiB–1 GiB); the edge profile lowers it to stay within its memory
	// budget.
	CacheKiB int
	// WALPages bounds the -wal file (default 1000 pages, 64–65536): the
	// writer checkpoints once the WAL holds that many pages, and a
	// checkpoint that reached its end truncates the file back to that
	// size (see walBound). The edge profile lowers it for a small disk.
	WALPages int
	// PageBytes is the page size of a database this Open creates (default
	// 4096, SQLite's; a power of two, 512–65536); an existing database
	// keeps its own. The edge profile lowers it: every commit writes the
	// pages it changed whole (setNewPageSize).
	PageBytes int
}

// WithDefaults fills unset fields.
func (c Config) WithDefaults() Config {
	if c.BusyTimeout == 0 {
		c.BusyTimeout = DefaultBusyTimeout
	}
	if c.ReadConns == 0 {
		c.ReadConns = DefaultReadConns
	}
	if c.CacheKiB == 0 {
		c.CacheKiB = DefaultCacheKiB
	}
	if c.WALPages == 0 {
		c.WALPages = DefaultWALPages
	}
	if c.PageBytes == 0 {
		c.PageBytes = DefaultPageBytes
	}
	if c.LogDir == "" {
		c.LogDir = filepath.Join(filepath.Dir(c.Path), DefaultLogDirName)
	}
	return c
}

// Validate names the field and its allowed range.
func (c Config) Validate() error {
	if c.Path == "" {
		return qlerror.New(qlerror.Invalid, "sqlite path: is required (e.g. ./qinglong.db)")
	}
	if strings.ContainsAny(c.Path, "?#") || strings.HasPrefix(c.Path, "file:") || c.Path == ":memory:" {
		return qlerror.New(qlerror.Invalid, "sqlite path: %q must be a plain file path without '?', '#', a file: prefix or :memory:", c.Path)
	}
	if c.NowMs == nil {
		return qlerror.New(qlerror.Internal, "sqlite store opened without a clock")
	}
	if c.BusyTimeout < time.Millisecond || c.BusyTimeout > MaxBusyTimeout {
		return qlerror.New(qlerror.Invalid, "sqlite busy timeout: %s is outside 1ms–%s", c.BusyTimeout, MaxBusyTimeout)
	}
	if c.ReadConns < 1 || c.ReadConns > MaxReadConns {
		return qlerror.New(qlerror.Invalid, "sqlite read connections: %d is outside 1–%d", c.ReadConns, MaxReadConns)
	}
	if c.CacheKiB < MinCacheKiB || c.CacheKiB > MaxCacheKiB {
		return qlerror.New(qlerror.Invalid, "sqlite cache: %d KiB is outside %d–%d KiB", c.CacheKiB, MinCacheKiB, MaxCacheKiB)
	}
	if c.WALPages < MinWALPages || c.WALPages > MaxWALPages {
		return qlerror.New(qlerror.Invalid, "sqlite WAL bound: %d pages is outside %d–%d pages", c.WALPages, MinWALPages, MaxWALPages)
	}
	return validPageBytes(c.PageBytes)
}

// validPageBytes refuses a page size SQLite would ignore.
func validPageBytes(n int) error {
	if n < MinPageBytes || n > MaxPageBytes || n&(n-1) != 0 {
		return qlerror.New(qlerror.Invalid, "sqlite page size: %d bytes is not a power of two in %d–%d", n, MinPageBytes, MaxPageBytes)
	}
	return nil
}

// Store is the SQLite adapter: catalog.Store, schedule.Store,
// schedule.StatusReader, run.Reader and the local executor's run-state
// writes, over one database file.
type Store struct {
	cfg Config
	// writer has exactly one connection: SQLite admits one writer at a
	// time anyway, and queueing in-process writers in database/sql is
	// cheaper and fairer than having them spin on SQLITE_BUSY.
	writer *sql.DB
	// reader is a query_only pool; WAL lets it read while the writer
	// writes.
	reader   *sql.DB
	nowMs    func() int64
	prepared preparedPtr
	// writerTurn (capacity 1) serialises use of the writer connection,
	// so a durable write's synchronous switch never spans another
	// goroutine's transaction.
	writerTurn chan struct{}
	// writerHeld adds up the time every turn on the writer held it:
	// retention reads it to tell a quiet writer from a busy one
	// (Retention.idle).
	writerHeld atomic.Int64
	// beginning is set while the holder of the writer's turn begins its
	// transaction, the one step of a write that waits for another
	// process's lock.
	beginning atomic.Bool
	// corruptErr is the first corruption error a write or a read transaction
	// met (noteCorrupt).
	corruptErr atomic.Pointer[error]
	// narrowed are the -wal and -shm files Open found wider than the
	// database file and narrowed, for the server to say once.
	narrowed []string
	// open is the store's shared hold of the database's open lock
	// (lockOpen), released by Close after both pools closed.
	open *openLock
}

// NarrowedCompanions are the -wal and -shm files Open narrowed to the
// database file's permissions (an older build left them wider).
func (s *Store) NarrowedCompanions() []string { return s.narrowed }

// Open opens (creating if needed) the database file. It does not migrate:
// call Migrate, then Ready, before serving.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := createPrivate(cfg.Path); err != nil {
		return nil, err
	}
	open, err := lockOpen(cfg.Path, false)
	if err != nil {
		return nil, err
	}
	s, err := openWriting(ctx, cfg)
	if err != nil {
		open.release() //nolint:errcheck // the open's error is the one returned
		return nil, err
	}
	s.open = open
	return s, nil
}

// openWriting opens the store's pools on the database file Open made.
func openWriting(ctx context.Context, cfg Config) (*Store, error) {
	narrowed, err := narrowCompanions(cfg.Path)
	if err != nil {
		return nil, err
	}
	if err := setNewPageSize(cfg.Path, cfg.PageBytes); err != nil {
		return nil, err
	}
	// Pragmas the writer sets on every connection: WAL so readers never
	// block the writer, NORMAL sync (durable writes switch to FULL, see
	// durability), foreign keys on (SQLite defaults them off), temporary
	// storage in memory so the per-decision savepoints of a page keep their
	// undo pages in memory instead of writing them to a temporary file (a
	// fifth of a page's cost; the undo of one decision is a few pages), and
	// BEGIN IMMEDIATE for every transaction so a read-then-write never
	// fails to upgrade; and the WAL's bound (walBound).
	common := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=cache_size(-%d)",
		cfg.BusyTimeout.Milliseconds(), cfg.CacheKiB)
	writer, err := sql.Open("sqlite", cfg.Path+"?"+common+"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=temp_store(memory)&_txlock=immediate"+walBound(cfg.WALPages, PageBytesOf(cfg.Path, cfg.PageBytes)))
	if err != nil {
		return nil, mapErr(err, "open "+cfg.Path)
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	writer.SetConnMaxIdleTime(0)
	if err := writer.PingContext(ctx); err != nil {
		writer.Close()
		if isNotADatabase(err) {
			return nil, mapErr(err, "open SQLite database "+cfg.Path)
		}
		room, known := roomLeft(filepath.Dir(cfg.Path))
		return nil, openRefused(err, "open", cfg.Path, room, known)
	}
	reader, err := sql.Open("sqlite", existingFile(cfg.Path)+"&"+common+"&_pragma=query_only(1)")
	if err != nil {
		writer.Close()
		return nil, mapErr(err, "open "+cfg.Path)
	}
	reader.SetMaxOpenConns(cfg.ReadConns)
	reader.SetMaxIdleConns(cfg.ReadConns)
	s := &Store{cfg: cfg, writer: writer, reader: reader, nowMs: cfg.NowMs, writerTurn: make(chan struct{}, 1), narrowed: narrowed}
	s.prepared.Store(&statements{})
	return s, nil
}

// OpenReaders opens every connection of the read pool now; the pool keeps
// them, as it never closes an idle one. A server calls it once its file is
// open: each connection holds the file's descriptor from then on, so reads
// go on from the server's own file if the path is later moved, deleted or
// replaced, where a connection opened then would find no file (see
// existingFile) and a read needing one would fail.
func (s *Store) OpenReaders(ctx context.Context) error {
	conns := make([]*sql.Conn, 0, s.cfg.ReadConns)
	defer func() {
		for _, c := range conns {
			c.Close() //nolint:errcheck // returns an open connection to the pool; nothing was written on it
		}
	}()
	// Each held until all are open: a connection returned at once would
	// be taken again by the next Conn, and the pool would open only one.
	for range s.cfg.ReadConns {
		c, err := s.reader.Conn(ctx)
		if err == nil {
			err = c.PingContext(ctx)
		}
		if c != nil {
			conns = append(conns, c)
		}
		if err != nil {
			return qlerror.Wrap(qlerror.Unavailable, err, "open the read connections of %s; check that nothing moves or deletes it", s.cfg.Path)
		}
	}
	return nil
}

// existingFile is the start of the name of a connection that opens path
// only if a file is there: the pools open connections lazily, and one
// opened after the file was moved or deleted would otherwise create a new,
// empty database at the path (sharing the moved file's WAL, still under
// the old name), which the next CLI command or start would take for the
// real one. The file exists by then: createPrivate made it. '%' is the one
// character of a plain path a URI name must escape (Validate refuses '?'
// and '#').
func existingFile(path string) string {
	return "file:" + strings.ReplaceAll(path, "%", "%25") + "?mode=rw"
}

// Close closes both pools.
func (s *Store) Close() error {
	s.closeStatements()
	rerr := s.reader.Close()
	werr := s.writer.Close()
	oerr := s.open.release()
	if werr != nil {
		return werr
	}
	if rerr != nil {
		return rerr
	}
	return oerr
}

// Ping checks that the file still answers a read.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	if err := s.readPool().QueryRowContext(ctx, qPing).Scan(&one); err != nil {
		return s.noteCorrupt(mapErr(err, "ping "+s.cfg.Path))
	}
	return nil
}
