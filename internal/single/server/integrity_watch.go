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
// ends the start with serve.failed instead. A start after a clean stop of
// the same file skips the check, saying so (CodeIntegrityCheckSkipped).
const (
	CodeIntegrityCheck        = "serve.integrity_check"
	CodeIntegrityChecked      = "serve.integrity_checked"
	CodeIntegrityCheckSkipped = "serve.integrity_check_skipped"
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
	// cleanStop is the time of the clean stop that closed the file as it
	// is now (takeCleanStop), which vouches for every page: a server reads
	// the whole file only after anything else. reason says why it reads
	// it, in the log.
	cleanStop time.Time
	reason    string
}

func (s *Server) integrityWatch(cleanStop time.Time, reason string) integrityWatch {
	return integrityWatch{log: s.cfg.Logger, checking: &s.checking, cleanStop: cleanStop, reason: reason}
}

// check runs the store's integrity check, telling of it.
func (w integrityWatch) check(ctx context.Context, st *sqlitestore.Store, path string) error {
	if w.skip {
		return nil
	}
	if !w.cleanStop.IsZero() {
		w.log.Info("integrity check skipped: clean stop at "+w.cleanStop.Format(time.RFC3339)+" of this same file (--integrity-check always reads it at every start)",
			"code", CodeIntegrityCheckSkipped, "db", path, "clean_stop", w.cleanStop.Format(time.RFC3339))
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
	w.log.Info("checking the database file's integrity, since "+w.reason+" (SQLite's quick_check reads all of it; /readyz answers 503 integrity_check until it is done)",
		"code", CodeIntegrityCheck, "db", path, "size_bytes", size, "reason", w.reason)
	began := time.Now()
	if err := st.CheckIntegrity(ctx); err != nil {
		return err
	}
	w.log.Info("checked the database file's integrity", "code", CodeIntegrityChecked, "db", path, "duration_ms", time.Since(began).Milliseconds())
	return nil
}
