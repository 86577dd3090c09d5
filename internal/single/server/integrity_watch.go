package server

import (
	"context"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// The diagnostic codes of the start's integrity check: as it begins, with
// the database file's size (the check reads all of it: seconds to minutes
// on a large file), and as it ends, with how long it took. A failed check
// ends the start with serve.failed instead.
const (
	CodeIntegrityCheck   = "serve.integrity_check"
	CodeIntegrityChecked = "serve.integrity_checked"
)

// integrityWatch tells of the start's integrity check: a log line as it
// begins and ends, and checking set meanwhile (/readyz names it). Its zero
// value (a command opening the file, not a server) tells nothing.
type integrityWatch struct {
	log      *slog.Logger
	checking *atomic.Bool
	// skip leaves the file unread: a command beside the server that
	// checked it when it started, and holds itself on the first corrupt
	// page it meets.
	skip bool
}

func (s *Server) integrityWatch() integrityWatch {
	return integrityWatch{log: s.cfg.Logger, checking: &s.checking}
}

// check runs the store's integrity check, telling of it.
func (w integrityWatch) check(ctx context.Context, st *sqlitestore.Store, path string) error {
	if w.skip {
		return nil
	}
	if w.log == nil {
		return st.CheckIntegrity(ctx)
	}
	var size int64
	if info, err := os.Stat(path); err == nil {
		size = info.Size()
	}
	w.checking.Store(true)
	defer w.checking.Store(false)
	w.log.Info("checking the database file's integrity (SQLite's quick_check reads all of it; /readyz answers 503 integrity_check until it is done)",
		"code", CodeIntegrityCheck, "db", path, "size_bytes", size)
	began := time.Now()
	if err := st.CheckIntegrity(ctx); err != nil {
		return err
	}
	w.log.Info("checked the database file's integrity", "code", CodeIntegrityChecked, "db", path, "duration_ms", time.Since(began).Milliseconds())
	return nil
}
