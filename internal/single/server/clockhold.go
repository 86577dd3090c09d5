package server

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// A device without a battery-backed clock (a home router, a single-board
// computer) boots with its clock behind: at 1970, at its firmware's build
// date, or at the newest file time under /etc (OpenWrt's sysfixtime); NTP
// moves it forward minutes later, or hours when the network is down. A
// scheduler that trusted the early reading would find every schedule row
// written "later than now" and move its cursor back to the next occurrence
// from that old date (schedule.ClockWatch); once NTP moved the clock
// forward, each cursor would be overdue by the whole gap, and the misfire
// policy would admit a Run and write ledger entries for occurrences that
// never existed, while retention, ageing rows by that clock, would delete
// the Runs dated in the gap.
//
// So a clock that reads more than ClockBehindTolerance earlier than the
// newest time the database recorded is not acted on at once: the
// scheduler's rounds and retention are held (no Run admitted, no cursor
// moved, no ledger entry, nothing deleted) until the clock passes that time
// — then nothing happened, and the rounds go on as after any restart — or
// until the wait (Config.ClockWait) has passed on the monotonic clock,
// which a wall clock set back or forward does not move; the clock is then
// taken as right, and a clock that really had read ahead (a device that
// booted years in the future and was corrected) is mended as before: the
// next round moves the cursors back (schedule.ClockWatch).

// ClockBehindTolerance is how far behind the newest recorded time the
// clock may read without a hold. NTP corrects a drifting clock by
// stepping it back well under a second, and more only after a long
// outage; within a minute, the finest step of a cron expression, a clock
// set back brings each trigger at most one occurrence it already ran,
// which the round passes over as clock_went_back without a second Run.
// A hold then would only make /readyz fail for that long.
const ClockBehindTolerance = time.Minute

// DefaultClockWait is how long a server holds by default for a clock that
// reads behind its database before taking it as right: a router's NTP
// client has the time within a minute or two of its uplink coming up,
// and ten minutes cover a slow uplink (PPPoE, a modem's own boot) while
// a device that really did boot years ahead, then was corrected, runs
// nothing for no longer than a reboot's worth of minutes.
const DefaultClockWait = 10 * time.Minute

// maxClockWait bounds ClockWait.
const maxClockWait = 24 * time.Hour

// The diagnostic codes of the hold: it began (a warning), the clock passed
// the newest recorded time (info), the wait ended with the clock still
// behind (a warning).
const (
	CodeClockBehindDatabase = "serve.clock_behind_database"
	CodeClockCaughtUp       = "serve.clock_caught_up"
	CodeClockWaitEnded      = "serve.clock_wait_ended"
)

// clockHold decides, round by round, whether the scheduler and retention
// are held for a clock behind the database. held is read by readiness and
// retention; the other fields belong to the scheduler's goroutine (and to
// Start, before that goroutine begins).
type clockHold struct {
	wait   time.Duration
	uptime func() time.Duration
	log    *slog.Logger
	held   atomic.Bool
	// newestMs is the newest recorded time the hold waits for the clock to
	// pass; sinceUp the uptime the hold began at.
	newestMs int64
	sinceUp  time.Duration
	// latestMs is the latest clock reading seen since the last step back:
	// a reading more than the tolerance behind it has the database asked.
	latestMs int64
}

// look asks st for the newest time it recorded and holds when nowMs reads
// more than ClockBehindTolerance earlier. A failed read holds nothing: the
// round that follows reads the same database and fails or logs its own.
func (h *clockHold) look(ctx context.Context, st *sqlitestore.Store, nowMs int64) {
	if h.wait == 0 {
		return
	}
	newest, err := st.ClockNewestRecordedMs(ctx)
	if err != nil || nowMs >= newest-ClockBehindTolerance.Milliseconds() {
		return
	}
	h.newestMs, h.sinceUp = newest, h.uptime()
	h.log.Warn("the clock reads earlier than the newest time the database recorded: this device may have no battery-backed clock and not have its time from NTP yet; "+
		"no Run is admitted, no trigger's next fire time is moved and retention deletes nothing until the clock passes that time, or until --clock-wait has passed, "+
		"when the clock is taken as right; check that NTP reaches a time server (the uplink, DNS, the firewall)",
		"code", CodeClockBehindDatabase, "clock", formatMs(nowMs), "database_newest", formatMs(newest), "clock_wait_ms", h.wait.Milliseconds())
	h.held.Store(true)
}

// admits reports whether a scheduler round may decide at nowMs, ending
// the hold when the clock has passed the newest recorded time or when the
// wait is over, and beginning one when the clock is seen going back.
func (h *clockHold) admits(ctx context.Context, st *sqlitestore.Store, nowMs int64) bool {
	if !h.held.Load() {
		// A step back is looked at once: the reading it stepped to is the
		// latest from then on, so a database not ahead of it is not asked
		// again each round until the clock gets back to where it was.
		if nowMs < h.latestMs-ClockBehindTolerance.Milliseconds() {
			h.look(ctx, st, nowMs)
			h.latestMs = nowMs
		}
		h.latestMs = max(h.latestMs, nowMs)
		return !h.held.Load()
	}
	waited := h.uptime() - h.sinceUp
	switch {
	case nowMs >= h.newestMs:
		h.log.Info("the clock passed the newest time the database recorded; admitting again, as after a restart",
			"code", CodeClockCaughtUp, "clock", formatMs(nowMs), "held_ms", waited.Milliseconds())
	case waited >= h.wait:
		h.log.Warn("the clock still reads earlier than the newest time the database recorded after --clock-wait: taking it as right; "+
			"triggers whose next fire time was computed while it read later now fire at their next occurrence from now",
			"code", CodeClockWaitEnded, "clock", formatMs(nowMs), "database_newest", formatMs(h.newestMs), "clock_wait_ms", h.wait.Milliseconds())
	default:
		return false
	}
	h.latestMs = nowMs
	h.held.Store(false)
	return true
}

// formatMs is a time in the log's words.
func formatMs(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339) }
