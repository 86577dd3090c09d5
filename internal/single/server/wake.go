package server

import (
	"context"
	"time"

	"github.com/qinglong/qinglong/internal/core/loop"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// wakeMargin is added to every wake at a due instant, so the round that
// follows reads the clock at or after it despite millisecond rounding.
// One process schedules a data directory, so there is no herd to spread.
const wakeMargin = 2 * time.Millisecond

// planWake shortens the wait after a round that found no more work to the
// next due instant the take reported (schedule.NextDue.Wait), the cadence
// staying the ceiling. A full page keeps the shared rule
// (schedule.Summary.StartNextAtOnce): the next round at once after
// progress, the cadence after none.
func (s *Server) planWake(sum schedule.Summary) {
	if sum.Full(s.cfg.PageSize) || sum.Next == nil {
		return
	}
	s.sched.WakeWithin(sum.Next.Wait(time.Now(), s.cfg.Cadence, wakeMargin))
}

// openWatch makes the loop that looks, every look period, whether the
// database path still names the file the server opened (see moved.go),
// and reads the database's version for the commit watch.
//
// The commit watch exists when the cadence is longer than the watch
// period: each look then tells whether another connection committed since
// the previous one, and wakes the scheduler, the dispatcher and the
// notifications: a trigger another process applied is taken at once (its
// next due instant then shortens the wait as usual), a Run it admitted
// starts, a cancel it asked stops a command, and a notification it retried
// goes out, without waiting for the loops' cadence. The
// version is read before anything is recovered, admitted or run, so
// nothing committed after a round read the database goes unseen (the
// server's own start-up commits only cost one wake); the loop starts last,
// once both loops it wakes have.
//
// The server's own commits go through its writer, another connection than
// the watch's, so they are seen too: each wakes the loops once more. That
// is bounded and comes to rest: a round with nothing to do only reads (the
// take, the dispatcher's pickup and a claim that finds no notification due
// write nothing), and a look wakes them
// only after something committed since the previous look — at most once per
// watch period however much commits. It also makes a Run admitted through
// the API start within a watch period.
func (s *Server) openWatch(ctx context.Context) error {
	var err error
	if s.cfg.watchPeriod() > 0 {
		if s.watch, err = s.store.WatchCommits(ctx); err != nil {
			return err
		}
	}
	s.watcher, err = loop.New(loop.Config{Name: "watch", Cadence: s.cfg.lookPeriod(), StopTimeout: s.cfg.StopTimeout,
		// A look reports its own failures; only a panic reaches the sink.
		OnError: func(err error) { s.cfg.Logger.Warn("watch", "code", CodeWatchFailed, "error", err) }}, s.look)
	if err != nil {
		return qlerror.Wrap(qlerror.Invalid, err, "watch")
	}
	return nil
}

// The diagnostic codes of the watch's warnings: a look that panicked, and
// the first of a series of looks that could not read the database's version.
const (
	CodeWatchFailed = "serve.watch_failed"
	CodeWatchBlind  = "serve.watch_blind"
)

// look is one look of the watch. A failed look is logged once until one
// succeeds again (it would otherwise repeat every watch period); meanwhile
// the loops keep their cadence and report their own failures. While the
// database file is corrupt or its path names another file, the commits
// are not looked at: the loops they would wake are held.
func (s *Server) look(ctx context.Context) (bool, error) {
	if s.checkCorruption() || s.checkDatabasePath(time.Now()) || s.watch == nil {
		return false, nil
	}
	changed, err := s.watch.Changed(ctx)
	if err != nil {
		if ctx.Err() == nil && !s.watchFailing {
			s.cfg.Logger.Warn("cannot see other processes' commits; they are taken at the cadence until this recovers", "code", CodeWatchBlind, "error", err.Error())
		}
		s.watchFailing = true
		return false, nil
	}
	s.watchFailing = false
	if changed {
		s.sched.Wake()
		s.disp.Wake()
		// A notification retried by hand (ql notifications retry) or
		// written by another process's commit goes out now.
		s.notify.Wake()
	}
	return false, nil
}
