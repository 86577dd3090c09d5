package server

import (
	"context"
	"io"
	"time"

	"github.com/qinglong/qinglong/internal/core/catalog"
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
}

// OpenBackend opens (creating and migrating if needed) the database file
// dbPath, so `ql apply` works before the first `ql serve`.
func OpenBackend(ctx context.Context, dbPath string) (*Backend, error) {
	nowMs := func() int64 { return time.Now().UnixMilli() }
	st, err := openStore(ctx, dbPath, Standalone, nowMs)
	if err != nil {
		return nil, err
	}
	return &Backend{
		Store:   st,
		Catalog: catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: nowMs},
		Layout:  LayoutOfDB(dbPath),
	}, nil
}

// ReadLog copies an attempt's captured output to w.
func (b *Backend) ReadLog(_ context.Context, attemptID string, w io.Writer) error {
	return executor.ReadLog(b.Layout.Logs, attemptID, w)
}

// Close closes the database.
func (b *Backend) Close() { _ = b.Store.Close() }
