// Package hold is how a serving process refuses the writes of its HTTP API
// and web console while a write would be lost, and says why: one gate the
// API, the console and the process's own loops pass, so none of them can
// write where the others are held.
package hold

import (
	"strconv"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Gate holds a serving process's writes while it cannot take them.
type Gate interface {
	// Admit admits one write, which holds the gate open until done is
	// called: the process waits for the writes it admitted before it holds
	// the next, so none admitted lands after the hold began. While writes
	// are held, err is the refusal saying why and what to do.
	Admit() (done func(), err error)
	// Held is the refusal a write would get now, nil while writes are
	// admitted. The process is then not ready, yet what it reads is its
	// own consistent data, so reads are still answered (and the console
	// shows the refusal above every page).
	Held() error
	// AdmitUndated is Admit for a write that takes no time from the
	// process's clock: a cancel, which the store dates no earlier than
	// the newest time the database recorded. It is held while a write
	// would be lost, not while the clock reads behind the database, so a
	// person can stop a Run then.
	AdmitUndated() (done func(), err error)
}

// Admit admits one write through g; a nil g admits every write.
func Admit(g Gate) (done func(), err error) {
	if g == nil {
		return func() {}, nil
	}
	return g.Admit()
}

// AdmitUndated admits one write through g that takes no time from the
// process's clock (Gate.AdmitUndated); a nil g admits every write.
func AdmitUndated(g Gate) (done func(), err error) {
	if g == nil {
		return func() {}, nil
	}
	return g.AdmitUndated()
}

// Held is the refusal a write through g would get now, nil while g admits
// writes; a nil g never holds them.
func Held(g Gate) error {
	if g == nil {
		return nil
	}
	return g.Held()
}

// RefusalDatabaseMoved is the reason of a write refused because the
// single-node server's database path no longer names the file it opened.
const RefusalDatabaseMoved qlerror.Reason = "database_moved"

// DatabaseMoved is the refusal of a write while the database path db names
// another file, or none: the write would go to the file the server holds
// open, which neither a command nor the next start opens.
func DatabaseMoved(db string) *qlerror.Error {
	return qlerror.New(qlerror.Unavailable, "this server takes no writes now: its database file %s was moved, deleted or replaced while it runs, "+
		"so the write would be lost; put the file back at %s and retry (the server resumes by itself), or stop the server and start it "+
		"on the file where it now is, with its -wal file moved next to it under its name", db, db).Because(RefusalDatabaseMoved, "db", db)
}

// RefusalDatabaseLocked is the reason of a write that waited for the
// single-node database's write lock, which another process held, for all
// the time its caller had (an API request's or a console page's limit).
const RefusalDatabaseLocked qlerror.Reason = "database_locked"

// DatabaseLocked is the refusal of a write that waited for the write lock
// of the database file db, held by another process, for waited, until its
// caller's time limit: nothing was written, and another try can succeed
// once that process lets the lock go. It says the time waited, which a
// loaded machine makes longer than the limit, as what was waited, never as
// the limit.
func DatabaseLocked(db string, waited time.Duration) *qlerror.Error {
	w := waited.Round(100 * time.Millisecond).String()
	return qlerror.New(qlerror.Timeout, "another process held the write lock of the database file %s; this write waited %s for it, all the time it had, so nothing was written "+
		"(a command of this program on the same data directory, or a backup, writing to the file holds it, as does a sqlite3 shell with a transaction open); try again in a moment, "+
		"and if it keeps happening, find the process that holds the file and let it finish, or stop it", db, w).Because(RefusalDatabaseLocked, "db", db, "waited", w)
}

// RefusalDatabaseCorrupt is the reason of a write refused because the
// single-node server met a corrupt page of its database file.
const RefusalDatabaseCorrupt qlerror.Reason = "database_corrupt"

// DatabaseCorrupt is the refusal of a write once the server met a corrupt
// page of the database file db: what it wrote could not be read back, nor
// the results of the commands it would start recorded. It lasts until the
// server stops; check is the command that checks the file.
func DatabaseCorrupt(db, check string) *qlerror.Error {
	return qlerror.New(qlerror.Unavailable, "this server takes no writes now: its database file %s is corrupt (SQLite found a malformed page), "+
		"so the write could be lost; stop the server, run `%s` to see what is damaged, and restore the latest backup "+
		"(docs/operations.md, \"Backup and restore\")", db, check).Because(RefusalDatabaseCorrupt, "db", db, "check", check)
}

// ParamRetryAfter is the param of a refusal that says, in whole seconds,
// when another try may succeed: the API and the console send it as the
// answer's Retry-After header too.
const ParamRetryAfter = "retryAfterSeconds"

// RetryAfter is err's Retry-After in seconds, "" when it names none.
func RetryAfter(err error) string { return qlerror.ParamsOf(err)[ParamRetryAfter] }

// RefusalClockBehindDatabase is the reason of a write refused because the
// single-node server's clock reads behind the newest time its database
// recorded (a device without a battery-backed clock, before NTP set it).
const RefusalClockBehindDatabase qlerror.Reason = "clock_behind_database"

// clockRetry bounds the Retry-After of a write refused for the clock: NTP
// may set it at any moment, so a client asked to wait the whole of what
// is left of the wait would wait long after it did.
const clockRetry = 30 * time.Second

// ClockBehindDatabase is the refusal of a write while the clock, at
// clockMs, reads behind newestMs, the newest time the database recorded,
// and left of the wait (--clock-wait) remains before the clock is taken as
// right: every row the write made would be dated by that clock — a
// trigger published now would take its next fire time from it and fire
// for the days the clock then jumps over.
func ClockBehindDatabase(clockMs, newestMs int64, left time.Duration) *qlerror.Error {
	behind := behindText(time.Duration(newestMs-clockMs) * time.Millisecond)
	clock, newest := rfc3339(clockMs), rfc3339(newestMs)
	until := max(left, 0).Round(time.Second)
	retry := strconv.FormatInt(int64(max(min(until, clockRetry), time.Second)/time.Second), 10)
	return qlerror.New(qlerror.Unavailable, "this server takes no writes now but a Run's cancel: its clock reads %s behind the newest time its database recorded (clock %s, database %s), "+
		"so whatever the write recorded would be dated by a wrong clock; the device likely has no battery-backed clock and no time from NTP yet: "+
		"check that NTP reaches a time server (the uplink, DNS, the firewall) and retry in a moment; the server takes writes again by itself once the clock passes that time, "+
		"or at the latest in %s, when --clock-wait has passed and the clock is taken as right; to take it as right now, restart the server with --clock-wait 0",
		behind, clock, newest, until).Because(RefusalClockBehindDatabase, "behind", behind, "clock", clock, "newest", newest, "left", until.String(), ParamRetryAfter, retry)
}

// ClockBehindDatabaseCommand is the refusal of a command that writes the
// database file itself (not through a server) while the clock, at clockMs,
// reads behind newestMs, the newest time the database recorded: the same
// measurement and reason as a server's hold, with no wait to outlast (a
// command does not wait), and override the flag that writes all the same.
func ClockBehindDatabaseCommand(clockMs, newestMs int64, override string) *qlerror.Error {
	behind := behindText(time.Duration(newestMs-clockMs) * time.Millisecond)
	clock, newest := rfc3339(clockMs), rfc3339(newestMs)
	return qlerror.New(qlerror.Unavailable, "nothing was written: this device's clock reads %s behind the newest time its database recorded (clock %s, database %s), "+
		"so whatever the command wrote would be dated by a wrong clock (a trigger applied, enabled or resumed now would take its next fire time from it and fire once the clock jumps forward); "+
		"the device likely has no battery-backed clock and no time from NTP yet: check that NTP reaches a time server (the uplink, DNS, the firewall) and run the command again once the clock is right; "+
		"if the clock is right (the database came from a machine whose clock ran ahead), give %s to write all the same",
		behind, clock, newest, override).Because(RefusalClockBehindDatabase, "behind", behind, "clock", clock, "newest", newest)
}

// behindText is how far a clock reads behind, in days and hours once it
// is a day or more (a boot at 1970 reads decades behind), else to the
// second.
func behindText(d time.Duration) string {
	const day = 24 * time.Hour
	if d < day {
		return d.Round(time.Second).String()
	}
	days, hours := d/day, (d%day).Round(time.Hour)/time.Hour
	if hours == 24 {
		days, hours = days+1, 0
	}
	return strconv.FormatInt(int64(days), 10) + "d" + strconv.FormatInt(int64(hours), 10) + "h"
}

// rfc3339 is ms as a UTC time.
func rfc3339(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339) }
