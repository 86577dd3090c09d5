package agent

import (
	"context"
	"sync"
	"time"

	"github.com/qinglong/qinglong/internal/core/loop"
	"github.com/qinglong/qinglong/internal/worker/journal"
)

// Pacing of journal writes the journal refuses for now (see persist).
const (
	// journalRetry and journalRetryMax bound the pause between two tries
	// of a refused write: soon after space is freed, and no busier than a
	// try every few seconds while it is not.
	journalRetry    = 100 * time.Millisecond
	journalRetryMax = 2 * time.Second
	// journalWriteTimeout bounds one try; the journal's busy timeout (5 s)
	// ends a try that waits for another process's write lock first.
	journalWriteTimeout = 10 * time.Second
	// journalQuietFor is how long writes may be refused before it is
	// said, when the disk is not full: a write lock held a moment is not
	// news. A full disk is said at once.
	journalQuietFor = 2 * time.Second
	// journalStopGrace is how long a refused end of an attempt is tried
	// into the worker's stop, which waits for it.
	journalStopGrace = 5 * time.Second
)

// journalOutage is the spell during which the journal refuses writes:
// said once when it begins to matter, and once when it ends, however many
// writes of however many attempts it refused.
type journalOutage struct {
	mu    sync.Mutex
	since time.Time
	told  bool
}

// persist calls write until the journal takes it. While the journal
// refuses it for now (its disk full, its write lock held) write is tried
// again, backing off from journalRetry to journalRetryMax, until giveUp
// says the write is no longer worth waiting for; ctx ends the wait too.
// The first refusal of a spell and its end are logged (see
// journalOutage); a write given up is the caller's to report. A write the
// journal refuses for good (a record past that state) returns at once.
func (w *worker) persist(ctx context.Context, giveUp func() bool, write func(context.Context) error) error {
	err := loop.Persist{First: journalRetry, Most: journalRetryMax, PerTry: journalWriteTimeout, RefusedForNow: journal.Refused,
		OnRefused: w.journalRefused, GiveUp: giveUp}.Do(ctx, write)
	if err == nil {
		w.journalTook()
	}
	return err
}

// once is a giveUp of a write tried once: its refusal is counted in the
// spell, and nothing waits for it.
func once() bool { return true }

// untilStopped is the giveUp of a write worth waiting for as long as the
// worker runs, and journalStopGrace into its stop.
func (w *worker) untilStopped() bool {
	began := w.stopBegun.Load()
	return began != 0 && time.Since(time.Unix(0, began)) >= journalStopGrace
}

// journalRefused logs the spell's beginning, counted from when the first
// write it refused was begun (began): at its first refusal when the disk
// is full, else once it has lasted journalQuietFor.
func (w *worker) journalRefused(began time.Time, err error) {
	o := &w.outage
	o.mu.Lock()
	defer o.mu.Unlock()
	now := time.Now()
	if o.since.IsZero() || began.Before(o.since) {
		o.since = began
	}
	if o.told || (!journal.DiskFull(w.cfg.DataDir, err) && now.Sub(o.since) < journalQuietFor) {
		return
	}
	o.told = true
	w.log.Error("the worker cannot write its journal: "+w.journal.Why(err)+"; meanwhile it takes no new work and the commands it runs go on, "+
		"and once the journal takes writes again it goes on by itself, with no restart",
		"code", ErrorCodeJournal, "running", w.count(), "error", err.Error())
}

// journalTook ends a spell of refusals, saying so if its beginning was.
func (w *worker) journalTook() {
	o := &w.outage
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.told {
		w.log.Info("the worker's journal takes writes again: it takes work again", "code", "journal_writable", "refused_for_ms", time.Since(o.since).Milliseconds())
	}
	o.since, o.told = time.Time{}, false
}
