package server

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/hold"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/retention"
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
// would be lost work. The scheduler, the dispatcher, the notifications'
// claims, retention and the API's and the console's writes are held until
// the path names the server's file again; reads go on, from the server's
// own file. Called from the watch's goroutine
// only, which owns movedSince and movedLogged.
func (s *Server) checkDatabasePath(now time.Time) bool {
	info, err := os.Stat(s.layout.DB)
	if err == nil && os.SameFile(s.dbFile, info) {
		if s.moved.Load() {
			// Said before readiness turns, so whoever sees the server
			// ready again finds the line that says why.
			s.cfg.Logger.Info("the database file is back at its path; admitting, starting commands, sending notifications and taking writes again", "code", CodeDatabaseBack,
				"db", s.layout.DB, "held_ms", now.Sub(s.movedSince).Milliseconds())
			s.moved.Store(false)
			s.sched.Wake()
			s.disp.Wake()
			s.notify.Wake()
			if s.retain != nil {
				s.retain.Wake()
			}
		}
		return false
	}
	if !s.moved.Load() {
		// Taken for writing, the lock waits out a round in progress: once
		// moved is set (and readiness says so), no round admits anything.
		// The line is said before moved is set, as the back line is said
		// before it is cleared: whoever sees readiness say database_moved
		// finds the line that says why and what to do.
		s.admitting.Lock()
		s.movedSince = now
		s.sayMoved(now, err)
		s.moved.Store(true)
		s.admitting.Unlock()
	} else if now.Sub(s.movedLogged) >= movedRepeat {
		s.sayMoved(now, err)
	}
	return true
}

// sayMoved logs that the database path names another file than the one
// opened (err is the stat's), at now.
func (s *Server) sayMoved(now time.Time, err error) {
	s.movedLogged = now
	found := "another file"
	switch {
	case errors.Is(err, fs.ErrNotExist):
		found = "missing"
	case err != nil:
		found = err.Error()
	}
	s.cfg.Logger.Error("the database path no longer names the file this server opened (it was moved, deleted or replaced); nothing is admitted "+
		"or started, no notification is sent and the API and the console take no writes until it does, and commands already running finish: put the file back at "+s.layout.DB+" and the server resumes by itself, "+
		"or stop the server and start it on the file where it now is, with "+filepath.Base(s.layout.DB)+"-wal (its latest writes) moved next to it under its name",
		"code", CodeDatabaseMoved, "db", s.layout.DB, "found", found, "since", s.movedSince.UTC().Format(time.RFC3339))
}

// writes is the server's write gate, which the API, the console and each
// start of a command pass: it holds them as checkDatabasePath holds the
// scheduler's rounds.
type writes struct{ s *Server }

// Admit takes admitting for reading until done, as unlessMoved does for
// the server's own loops: checkDatabasePath takes it for writing to set moved, so once the
// hold is set (and readiness says so) no write admitted before it is still
// under way, and none is admitted after it.
func (w writes) Admit() (func(), error) {
	w.s.admitting.RLock()
	if err := w.Held(); err != nil {
		w.s.admitting.RUnlock()
		return nil, err
	}
	return w.s.admitting.RUnlock, nil
}

// AdmitUndated is Admit for a write the clock does not date (a cancel):
// held while it would be lost, not for the clock.
func (w writes) AdmitUndated() (func(), error) {
	w.s.admitting.RLock()
	if err := w.lost(); err != nil {
		w.s.admitting.RUnlock()
		return nil, err
	}
	return w.s.admitting.RUnlock, nil
}

// Held is the refusal of a write that would be lost (lost), or while the
// clock reads behind the database (clockhold.go), which would date it.
func (w writes) Held() error {
	if err := w.lost(); err != nil {
		return err
	}
	return w.s.clockHold.refusal()
}

// lost is the refusal of a write once the database file is corrupt, or
// while the database path names another file, or none.
func (w writes) lost() error {
	switch {
	case w.s.corrupt.Load():
		return hold.DatabaseCorrupt(w.s.layout.DB, w.s.checkCommand())
	case w.s.moved.Load():
		return hold.DatabaseMoved(w.s.layout.DB)
	}
	return nil
}

// unlessMoved runs write under admitting's read lock unless the server is
// held: the database path names another file, or the file is corrupt.
// checkDatabasePath and checkCorruption take the lock for writing to set
// the hold, so once it is set no write run here is still under way.
func (s *Server) unlessMoved(write func()) {
	s.admitting.RLock()
	defer s.admitting.RUnlock()
	if s.held() {
		return
	}
	write()
}

// heldOutbox claims no notification while the database path names another
// file: a delivery recorded only in the file the server holds open would
// be sent again by the next start on the path. Recording a delivery
// already sent is not held: it belongs in the server's file, like a
// command's result, whether that file comes back or is started where it
// now is.
type heldOutbox struct {
	notify.Outbox
	s *Server
}

// NotificationsClaim claims nothing while the path names another file,
// nor while the clock reads behind the database: the delivery would be
// recorded by that clock (clockhold.go). What falls due meanwhile waits
// for the hold's end.
func (o heldOutbox) NotificationsClaim(ctx context.Context, c notify.Claim) (msgs []notify.Message, err error) {
	if o.s.clockHold.holding() {
		return nil, nil
	}
	o.s.unlessMoved(func() { msgs, err = o.Outbox.NotificationsClaim(ctx, c) })
	return msgs, err
}

// heldRetention deletes nothing while the database path names another
// file: a batch removes log files a start on the path would still find
// rows for. A held batch reports nothing more to delete, so the pass ends
// quietly; the loop is woken when the file is back.
type heldRetention struct {
	retention.Store
	s *Server
}

// RetentionBatch deletes nothing while the path names another file, nor
// while the clock reads behind the database: retention ages rows by that
// clock, and the Runs it would date are the ones it then deletes
// (clockhold.go).
func (r heldRetention) RetentionBatch(ctx context.Context, b retention.Batch) (res retention.Result, err error) {
	if r.s.clockHold.holding() {
		return retention.Result{}, nil
	}
	r.s.unlessMoved(func() { res, err = r.Store.RetentionBatch(ctx, b) })
	return res, err
}

// RetentionCompact gives nothing back while the path names another file.
func (r heldRetention) RetentionCompact(ctx context.Context) (freed int64, err error) {
	r.s.unlessMoved(func() { freed, err = r.Store.RetentionCompact(ctx) })
	return freed, err
}

// RetentionFinish removes no file while the path names another file: a
// start on the path would still find rows for it.
func (r heldRetention) RetentionFinish(ctx context.Context) (kept []retention.Kept, err error) {
	r.s.unlessMoved(func() { kept, err = r.Store.RetentionFinish(ctx) })
	return kept, err
}

// heldTouches records no token use while the database path names another
// file. It reads the flag without the lock: a request's sign-in or write
// may already hold admitting for reading, and a second read lock behind a
// waiting look would deadlock; a use recorded in the moment the hold is
// set is informational and harmless.
type heldTouches struct {
	apitoken.Authenticator
	s *Server
}

// TokenTouch records nothing while the path names another file, nor
// while the clock reads behind the database, which would date the use
// before the token's last one.
func (t heldTouches) TokenTouch(ctx context.Context, id string, atMs int64) error {
	if t.s.held() || t.s.clockHold.holding() {
		return nil
	}
	return t.Authenticator.TokenTouch(ctx, id, atMs)
}
