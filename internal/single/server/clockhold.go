package server

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/qinglong/qinglong/internal/core/hold"
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
// Whatever else the server writes would be dated by that clock too: a
// trigger published or enabled would take its first fire time from it and
// fire for the whole gap once the clock jumps, a queued Run started or a
// notification sent would record a start or a delivery before the events
// that led to them, a sign-in would end its session early.
//
// So a clock that reads more than ClockBehindTolerance earlier than the
// newest time the database recorded is not acted on at once: the
// scheduler's rounds and retention are held (no Run admitted, no cursor
// moved, no ledger entry, nothing deleted), and so is everything the write
// gate holds for a moved database (writes): the API's and the console's
// writes are refused with the reason clock_behind_database, no queued Run
// is started, no notification claimed, no token use recorded. Reads are
// answered, and commands already running finish and record their results,
// which belong to the database whatever the clock. The hold lasts until
// the clock passes that time — then nothing happened, and the server goes
// on as after any restart — or until the wait (Config.ClockWait) has
// passed on the monotonic clock, which a wall clock set back or forward
// does not move; the clock is then taken as right, and a clock that really
// had read ahead (a device that booted years in the future and was
// corrected) is mended as before: the next round moves the cursors back
// (schedule.ClockWatch).
//
// A server holds from its start, before its API takes a request. A hold a
// round begins while serving is set without waiting out the writes under
// way, as the moved database's hold does (admitting): the clock stepped
// back before any round could see it, so a write under way then was dated
// by it whatever the hold did; waiting would only stall the round.
//
// A restart during the hold begins a new wait rather than going on with
// the old one: no clock that outlives the process can measure it (the wall
// clock is the one in doubt, the monotonic one begins again at each boot,
// which is what most often brings the hold), and the hold changed nothing
// dated, so the next start finds the same newest time and holds for the
// same reason. Waiting longer is the safe side; --clock-wait 0 is there
// for an operator who knows the clock is right.

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

// clockHold decides, round by round, whether the server is held for a
// clock behind the database. held is read by readiness, the write gate
// (the API's and the console's writes, each start of a command),
// notifications and retention; latestMs belongs to the scheduler's
// goroutine (and to Start, before that goroutine begins).
type clockHold struct {
	wait   time.Duration
	uptime func() time.Duration
	nowMs  func() int64
	log    *slog.Logger
	// held is the hold while it lasts, nil otherwise.
	held atomic.Pointer[heldSince]
	// latestMs is the latest clock reading seen since the last step back:
	// a reading more than the tolerance behind it has the database asked.
	latestMs int64
}

// heldSince is a hold: the newest recorded time it waits for the clock to
// pass, and the uptime it began at.
type heldSince struct {
	newestMs int64
	sinceUp  time.Duration
}

// holding reports whether the hold lasts.
func (h *clockHold) holding() bool { return h.held.Load() != nil }

// refusal is the refusal of a write while the hold lasts, saying how far
// the clock reads behind and how long the wait has left; nil otherwise.
func (h *clockHold) refusal() error {
	held := h.held.Load()
	if held == nil {
		return nil
	}
	return hold.ClockBehindDatabase(h.nowMs(), held.newestMs, h.wait-(h.uptime()-held.sinceUp))
}

// ClockBehind asks st for the newest time it recorded and reports whether
// nowMs reads more than ClockBehindTolerance earlier: the one measurement
// by which a server holds and a command writing the file directly refuses.
func ClockBehind(ctx context.Context, st *sqlitestore.Store, nowMs int64) (newestMs int64, behind bool, err error) {
	newestMs, err = st.ClockNewestRecordedMs(ctx)
	if err != nil {
		return 0, false, err
	}
	return newestMs, nowMs < newestMs-ClockBehindTolerance.Milliseconds(), nil
}

// look asks st for the newest time it recorded and holds when nowMs reads
// more than ClockBehindTolerance earlier. A failed read holds nothing: the
// round that follows reads the same database and fails or logs its own.
func (h *clockHold) look(ctx context.Context, st *sqlitestore.Store, nowMs int64) {
	if h.wait == 0 {
		return
	}
	newest, behind, err := ClockBehind(ctx, st, nowMs)
	if err != nil || !behind {
		return
	}
	h.log.Warn("the clock reads earlier than the newest time the database recorded: this device may have no battery-backed clock and not have its time from NTP yet; "+
		"nothing is dated by it: no Run is admitted and no queued Run started, no trigger's next fire time is moved, no notification is sent, retention deletes nothing "+
		"and the API and the console refuse writes (503 clock_behind_database), until the clock passes that time, or until --clock-wait has passed, "+
		"when the clock is taken as right; check that NTP reaches a time server (the uplink, DNS, the firewall), or restart with --clock-wait 0 to take the clock as right now",
		"code", CodeClockBehindDatabase, "clock", formatMs(nowMs), "database_newest", formatMs(newest), "clock_wait_ms", h.wait.Milliseconds())
	h.held.Store(&heldSince{newestMs: newest, sinceUp: h.uptime()})
}

// admits reports whether a scheduler round may decide at nowMs, ending
// the hold when the clock has passed the newest recorded time or when the
// wait is over, and beginning one when the clock is seen going back.
func (h *clockHold) admits(ctx context.Context, st *sqlitestore.Store, nowMs int64) bool {
	held := h.held.Load()
	if held == nil {
		// A step back is looked at once: the reading it stepped to is the
		// latest from then on, so a database not ahead of it is not asked
		// again each round until the clock gets back to where it was.
		if nowMs < h.latestMs-ClockBehindTolerance.Milliseconds() {
			h.look(ctx, st, nowMs)
			h.latestMs = nowMs
		}
		h.latestMs = max(h.latestMs, nowMs)
		return !h.holding()
	}
	waited := h.uptime() - held.sinceUp
	switch {
	case nowMs >= held.newestMs:
		h.log.Info("the clock passed the newest time the database recorded; admitting, starting queued Runs, sending notifications and taking writes again, as after a restart",
			"code", CodeClockCaughtUp, "clock", formatMs(nowMs), "held_ms", waited.Milliseconds())
	case waited >= h.wait:
		h.log.Warn("the clock still reads earlier than the newest time the database recorded after --clock-wait: taking it as right and admitting, starting queued Runs, sending notifications and taking writes again; "+
			"triggers whose next fire time was computed while it read later now fire at their next occurrence from now; "+
			"should NTP set it forward later, each trigger then overdue follows its misfire policy (a catch-up Run), so give a device whose uplink comes up late a longer --clock-wait",
			"code", CodeClockWaitEnded, "clock", formatMs(nowMs), "database_newest", formatMs(held.newestMs), "clock_wait_ms", h.wait.Milliseconds())
	default:
		return false
	}
	h.latestMs = nowMs
	h.held.Store(nil)
	return true
}

// formatMs is a time in the log's words.
func formatMs(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339) }
