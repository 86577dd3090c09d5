package server

import "github.com/qinglong/qinglong/internal/core/shellquote"

// CodeDatabaseCorrupt is the diagnostic code of the error that the server
// met a corrupt page of its database file and holds its work until it
// stops.
const CodeDatabaseCorrupt = "serve.database_corrupt"

// held reports whether the server takes no work now: its database file is
// corrupt, or its path names another file (see checkDatabasePath).
func (s *Server) held() bool { return s.corrupt.Load() || s.moved.Load() }

// checkCorruption holds the server, as a moved database does and for good,
// once its store met a corruption error (SQLITE_CORRUPT, SQLITE_NOTADB) on
// a write or a read: the page stays corrupt, so every Run admitted or
// command started after it could lose its record, and only a backup mends
// the file. It logs one error saying so. Called from the watch's goroutine
// only, so the hold is set within a look period of the error.
func (s *Server) checkCorruption() bool {
	if s.corrupt.Load() {
		return true
	}
	err := s.store.Corrupt()
	if err == nil {
		return false
	}
	// As for moved: once corrupt is set no round or write admitted
	// before it is still under way, and the line is said before it is
	// set, so whoever sees readiness say database_corrupt finds it.
	s.admitting.Lock()
	defer s.admitting.Unlock()
	s.cfg.Logger.Error("the database file is corrupt: SQLite found a malformed page; nothing is admitted or started, no notification is sent and the API "+
		"and the console take no writes until the server stops, and commands already running finish: stop the server, run `"+s.checkCommand()+
		"` to see what is damaged, and restore the latest backup (docs/operations.md, \"Backup and restore\")",
		"code", CodeDatabaseCorrupt, "db", s.layout.DB, "error", err.Error())
	s.corrupt.Store(true)
	return true
}

// checkCommand is the command that checks the server's database file.
func (s *Server) checkCommand() string {
	return s.cfg.Binary + " db check --data-dir " + shellquote.Quote(s.cfg.DataDir)
}
