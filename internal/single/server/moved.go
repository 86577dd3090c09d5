package server

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// The diagnostic codes of the database path no longer naming the file the
// server opened (an error, repeated every movedRepeat while it lasts) and
// of its naming that file again (info).
const (
	CodeDatabaseMoved = "serve.database_moved"
	CodeDatabaseBack  = "serve.database_back"
)

// movedRepeat is how often the database_moved error is logged again while
// it lasts: once is easily missed, every look would flood the log.
const movedRepeat = time.Minute

// recordDatabaseFile keeps the identity of the database file the store has
// just opened, migrated and checked: SQLite holds its descriptor from then
// on, so this is the file every write of the server goes to whatever the
// path later names. A swap of the path between the store's open and this
// stat would go unseen; nothing QingLong does moves it then.
func (s *Server) recordDatabaseFile() error {
	info, err := os.Stat(s.layout.DB)
	if err != nil {
		return qlerror.Wrap(qlerror.Unavailable, err, "read the database file %s just opened; check that nothing moves or deletes it", s.layout.DB)
	}
	s.dbFile = info
	return nil
}

// checkDatabasePath compares the database path with the file the server
// opened and reports whether the server is held because they differ. A
// moved, deleted or replaced file keeps taking the server's writes through
// its open descriptor, but nobody reads them: a CLI command opens the path
// and finds another database or creates an empty one, and the next start
// opens the path too, so every Run admitted or command started meanwhile
// would be lost work. The scheduler and the dispatcher are held until the
// path names the server's file again. Called from the watch's goroutine
// only, which owns movedSince and movedLogged.
func (s *Server) checkDatabasePath(now time.Time) bool {
	info, err := os.Stat(s.layout.DB)
	if err == nil && os.SameFile(s.dbFile, info) {
		if s.moved.Load() {
			s.moved.Store(false)
			s.cfg.Logger.Info("the database file is back at its path; admitting and starting commands again", "code", CodeDatabaseBack,
				"db", s.layout.DB, "held", now.Sub(s.movedSince).Round(time.Millisecond))
			s.sched.Wake()
			s.disp.Wake()
		}
		return false
	}
	if !s.moved.Load() {
		// Taken for writing, the lock waits out a round in progress: once
		// moved is set (and readiness says so), no round admits anything.
		s.admitting.Lock()
		s.moved.Store(true)
		s.admitting.Unlock()
		s.movedSince = now
	} else if now.Sub(s.movedLogged) < movedRepeat {
		return true
	}
	s.movedLogged = now
	found := "another file"
	switch {
	case errors.Is(err, fs.ErrNotExist):
		found = "missing"
	case err != nil:
		found = err.Error()
	}
	s.cfg.Logger.Error("the database path no longer names the file this server opened (it was moved, deleted or replaced); nothing is admitted "+
		"or started until it does, and commands already running finish: put the file back at "+s.layout.DB+" and the server resumes by itself, "+
		"or stop the server and start it on the file where it now is, with "+filepath.Base(s.layout.DB)+"-wal (its latest writes) moved next to it under its name",
		"code", CodeDatabaseMoved, "db", s.layout.DB, "found", found, "since", s.movedSince.UTC().Format(time.RFC3339))
	return true
}
