package server

import (
	"log/slog"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// A laptop that sleeps, a process stopped (SIGSTOP, a debugger) or a
// virtual machine paused runs no scheduler round meanwhile: the first round
// after it finds every occurrence of the gap overdue and decides them by
// each trigger's misfire policy — fire_once admits the oldest and records
// the others collapsed, skip records those past the grace skipped. That is
// by design, but the round says it only in its ordinary info line, so the
// server warns once per gap (CodeSchedulerGap), with how long it was away
// and what the rounds that caught up passed over.
//
// A round never begins more than the cadence after the previous one ended
// (the loop's ceiling; a wake only shortens the wait), so one that begins
// later than that by more than GapTolerance on the wall clock followed time
// the scheduler did not run. The wall clock is what occurrences fall due
// by, so it measures the gap; the monotonic clock (Config.Uptime, Go's
// reading of Linux's CLOCK_MONOTONIC) tells why: it stops while the
// machine is suspended and runs while a process is stopped, so both
// moving means this process was not running, and the wall clock alone a
// suspend (or a clock set forward, which it cannot tell from one).
//
// The gap costs no query: the rounds' own counts (schedule.Summary.Passed)
// say what was passed over. The warning waits for the rounds that catch up
// (full pages taken one after another) to end, so it counts them all.

// CodeSchedulerGap is the warning of a gap in the scheduler's rounds.
const CodeSchedulerGap = "scheduler.gap"

// GapTolerance is how much later than its cadence a round may begin before
// the time between counts as a gap: far above any pause of a running
// process (a collection, a slow flush), and below the minute of the
// commonest cron steps, whose occurrences a longer gap collapses or skips.
const GapTolerance = 30 * time.Second

// Causes of a gap, as its warning's `cause` says.
const (
	gapNotRunning = "process_not_running"
	gapSuspended  = "suspended_or_clock_forward"
)

// gapWatch finds gaps between the scheduler's rounds; the scheduler's
// goroutine owns it.
type gapWatch struct {
	cadence time.Duration
	log     *slog.Logger
	// endedMs and endedUp are when the previous round ended, by the wall
	// and the monotonic clock; ended says there was one.
	endedMs int64
	endedUp time.Duration
	ended   bool
	// open is a gap whose catch-up rounds are being counted.
	open *gap
}

// gap is a gap in the rounds and what the rounds after it decided.
type gap struct {
	awayMs, monotonicMs int64
	admitted            int
	passed              map[schedule.PassReason]int64
}

// began is told a round begins at nowMs (wall) and up (monotonic): a gap
// since the previous round opens one (or, while one is still counted,
// lengthens it).
func (w *gapWatch) began(nowMs int64, up time.Duration) {
	if !w.ended {
		return
	}
	awayMs := nowMs - w.endedMs
	if awayMs <= (w.cadence + GapTolerance).Milliseconds() {
		return
	}
	if w.open == nil {
		w.open = &gap{passed: map[schedule.PassReason]int64{}}
	}
	w.open.awayMs += awayMs
	w.open.monotonicMs += (up - w.endedUp).Milliseconds()
}

// finished is told a round ended at nowMs and up.
func (w *gapWatch) finished(nowMs int64, up time.Duration) {
	w.endedMs, w.endedUp, w.ended = nowMs, up, true
}

// decided counts a round's decisions into the open gap, and warns of it
// once the round leaves no more work for the next one at once (more).
func (w *gapWatch) decided(sum schedule.Summary, more bool) {
	g := w.open
	if g == nil {
		return
	}
	g.admitted += sum.Counts[schedule.Admitted]
	for r, n := range sum.Passed {
		g.passed[r] += n
	}
	if more {
		return
	}
	w.open = nil
	cause := gapSuspended
	if g.monotonicMs >= g.awayMs-GapTolerance.Milliseconds() {
		cause = gapNotRunning
	}
	w.log.Warn("the scheduler did not run for a while (a machine asleep, a process stopped, or a clock set forward): the occurrences due meanwhile were decided by each trigger's misfire policy; "+
		"`ql triggers show NAME` lists those passed over under PASSED OVER",
		"code", CodeSchedulerGap, "away_ms", g.awayMs, "monotonic_ms", g.monotonicMs, "cause", cause,
		"admitted", g.admitted, "collapsed", g.passed[schedule.PassCollapsed], "skipped", g.passed[schedule.PassMisfire],
		"past_catch_up_window", g.passed[schedule.PassCatchUpWindow])
}
