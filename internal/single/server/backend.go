package server

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/single/executor"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// Backend is a single-node database opened for the CLI's apply and read
// commands (not for serving).
type Backend struct {
	Store   *sqlitestore.Store
	Catalog catalog.Service
	Layout  Layout
	// Migrated lists the migrations the open applied to a file that
	// existed before (an older build's); a file the open created lists
	// none, as the server's start logs none for it.
	Migrated []string
	// HeldNone says the file existed but held no QingLong database (an
	// empty file, which took every migration): said as that, never as an
	// older build's database migrated.
	HeldNone bool
}

// OpenBackend opens (creating and migrating if needed) the database file
// dbPath, so `ql apply` works before the first `ql serve`.
func OpenBackend(ctx context.Context, dbPath string) (*Backend, error) {
	// The directory too, as `ql serve` makes it: a first `ql apply` (or
	// `serve --example`, which applies before serving) into a new
	// --data-dir must not fail where the server would have started.
	if dir := filepath.Dir(dbPath); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, qlerror.Wrap(qlerror.Unavailable, err, "create the data directory %s; check that its parent is writable, or give another --data-dir", dir)
		}
	}
	_, statErr := os.Stat(dbPath)
	nowMs := func() int64 { return time.Now().UnixMilli() }
	st, applied, err := openStore(ctx, dbPath, Standalone, nowMs, integrityWatch{})
	if err != nil {
		return nil, err
	}
	b := &Backend{
		Store:   st,
		Catalog: catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: nowMs},
		Layout:  LayoutOfDB(dbPath),
	}
	switch {
	case errors.Is(statErr, fs.ErrNotExist):
	case len(applied) == len(sqlitestore.Stream()):
		b.HeldNone = true
	default:
		b.Migrated = applied
	}
	return b, nil
}

// ReadLog copies at most max bytes of an attempt's captured output from
// offset on to w. The executor marks a log cut at its cap on the attempt,
// not in the file, so truncated is always false here: readers take it from
// the attempt. A read whose caller's time is already up is not begun.
func (b *Backend) ReadLog(ctx context.Context, attemptID string, offset, max int64, w io.Writer) (next int64, truncated bool, err error) {
	if err := ctx.Err(); err != nil {
		return offset, false, err
	}
	next, err = executor.ReadLogUpTo(b.Layout.Logs, attemptID, offset, max, w)
	return next, false, err
}

// Close closes the database.
func (b *Backend) Close() { _ = b.Store.Close() }
