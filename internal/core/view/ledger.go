package view

import (
	"fmt"
	"time"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// LedgerEntry is the stable shape of an occurrence ledger entry:
// occurrences passed over without a Run, and why.
type LedgerEntry struct {
	Reason          string `json:"reason"`
	FirstMs         int64  `json:"firstScheduledForMs"`
	LastMs          int64  `json:"lastScheduledForMs"`
	Count           int64  `json:"count"`
	AtLeast         bool   `json:"countIsLowerBound"`
	TriggerRevision int64  `json:"triggerRevision"`
	RecordedAtMs    int64  `json:"recordedAtMs"`
	Compacted       bool   `json:"compacted"`
	// Backfilled counts the occurrences of the entry a backfill gave a
	// Run after it was recorded (schedule.LedgerEntry.Backfilled).
	Backfilled int64 `json:"backfilled"`
}

// FireTime is one upcoming occurrence, in UTC milliseconds and in the
// trigger's zone, with the jittered instant it falls due at.
type FireTime struct {
	AtMs    int64  `json:"atMs"`
	Local   string `json:"local"`
	DueAtMs int64  `json:"dueAtMs"`
}

// TriggerDetail is what `ql triggers show` prints.
type TriggerDetail struct {
	Trigger    Trigger    `json:"trigger"`
	Paused     bool       `json:"paused"`
	PauseNote  string     `json:"pauseNote,omitempty"`
	PausedAtMs *int64     `json:"pausedAtMs"`
	NowMs      int64      `json:"nowMs"`
	NextFires  []FireTime `json:"nextFires"`
	// NextFiresUnknown says why NextFires is empty for a trigger whose
	// stored cron does not parse here (a zone the zone database of this
	// host lacks), and what mends it; "" otherwise.
	NextFiresUnknown string `json:"nextFiresUnknown,omitempty" cmdname:"said"`
	Runs             []Run  `json:"runs"`
	// RunsMore says the trigger has older Runs than Runs lists (`ql runs
	// list --trigger` lists them all), so its last Runs are not taken for
	// every Run it had.
	RunsMore bool          `json:"runsMore"`
	Ledger   []LedgerEntry `json:"ledger"`
	// LedgerMore says the trigger has older ledger entries than Ledger
	// lists, so a reader does not take the newest entries for all of
	// them and an occurrence outside them for unaccounted.
	LedgerMore bool `json:"ledgerMore"`
	// Audit is the trigger's newest schedule.AuditShown pause, resume,
	// enable and disable records, newest first; AuditMore says older ones
	// exist.
	Audit     []AuditRecord `json:"audit"`
	AuditMore bool          `json:"auditMore"`
	// AuditUnreadable says this database role may not read the audit
	// trail (AuditUnreadableHint says what to do): Audit is then empty
	// because it could not be read, not because nobody paused the trigger.
	AuditUnreadable bool `json:"auditUnreadable"`
	// DueWhilePaused counts the occurrences that fell due since a paused
	// trigger's pause: the ledger records them (passed over, paused) only
	// when it is resumed, so without this an empty ledger would read as
	// every occurrence having run. Nil when not paused or none fell due.
	DueWhilePaused *DueWhilePaused `json:"dueWhilePaused,omitempty"`
}

// DueWhilePaused is the stretch of occurrences a paused trigger's resume
// will record as passed over: how many (exact up to
// schedule.MaxPassedCount, AtLeast beyond), the first and the last.
type DueWhilePaused struct {
	Count   int64 `json:"count"`
	AtLeast bool  `json:"atLeast"`
	FirstMs int64 `json:"firstMs"`
	LastMs  int64 `json:"lastMs"`
}

// dueWhilePaused counts t's occurrences in [pausedAtMs, nowMs] within its
// bounds, as a resume now would pass them over.
func dueWhilePaused(c trigger.Cron, pausedAtMs, nowMs int64) *DueWhilePaused {
	sched, err := cron.Parse(c.Expression, c.Timezone)
	if err != nil {
		return nil
	}
	to := nowMs
	if c.EndAtMs != 0 {
		to = min(to, c.EndAtMs)
	}
	p, ok := schedule.PassRange(sched, schedule.PassPaused, max(pausedAtMs, c.StartAtMs), to)
	if !ok {
		return nil
	}
	return &DueWhilePaused{Count: p.Count, AtLeast: p.AtLeast, FirstMs: p.FirstMs, LastMs: p.LastMs}
}

// AuditRecord is the stable shape of one audit record: what was done
// (pause, resume, enable, disable), by whom, with which note, when.
type AuditRecord struct {
	Action string `json:"action"`
	Actor  string `json:"actor"`
	Note   string `json:"note,omitempty"`
	AtMs   int64  `json:"atMs"`
}

// AuditUnreadableHint is what a reader shows for AuditUnreadable: a
// database role that lacks SELECT on the audit trail, its grants not
// re-applied after the upgrade that added it.
const AuditUnreadableHint = "the audit trail is not readable by this database role: its grants predate this version; run `ql db roles` (as a superuser) to grant it"

// MaxLedgerShown is the most ledger entries a trigger detail shows: a
// trigger's whole ledger, its newest schedule.LedgerKeep entries in full and
// at most one summed entry per reason for the older ones.
var MaxLedgerShown = schedule.LedgerKeep + len(schedule.PassReasons)

// DetailLedgerRead is how many ledger entries to read for a detail that
// shows ledgerLimit of them: one more, whose presence says older ones exist.
func DetailLedgerRead(ledgerLimit int) int { return ledgerLimit + 1 }

// LocalTimeFormat is how a fire time is shown in its trigger's zone.
const LocalTimeFormat = "2006-01-02 15:04:05 MST -07:00"

// NextFireCount is how many upcoming fire times a trigger detail shows.
const NextFireCount = 5

// NextFireTimes are the first n fire times of c after afterMs, and c's
// zone: occurrences before its startAt do not exist, and none fires after
// its endAt.
func NextFireTimes(c trigger.Cron, afterMs int64, n int) ([]int64, *time.Location, error) {
	sched, err := cron.Parse(c.Expression, c.Timezone)
	if err != nil {
		return nil, nil, err
	}
	var next []int64
	for at, ok := sched.Next(max(afterMs, c.StartAtMs-1)); ok && len(next) < n; at, ok = sched.Next(at) {
		if c.EndAtMs != 0 && at > c.EndAtMs {
			break
		}
		next = append(next, at)
	}
	return next, sched.Location(), nil
}

// UpcomingFires are t's next n occurrences at nowMs, each with its due
// time, from its cursor when the cursor's due time is still ahead (an
// occurrence whose nominal time has passed waits out its jitter: it is
// the next to fire, not one already gone), else after nowMs; an error
// when its stored cron no longer parses.
func UpcomingFires(t schedule.TriggerStatus, nowMs int64, n int) ([]FireTime, error) {
	after, out := nowMs, make([]FireTime, 0, n)
	pending := t.NextFireAtMs != nil && t.NextDueAtMs != nil && *t.NextDueAtMs > nowMs
	if pending {
		after = *t.NextFireAtMs
		n--
	}
	next, loc, err := NextFireTimes(t.Cron, after, n)
	if err != nil {
		return nil, fmt.Errorf("trigger %s: its stored cron no longer parses: %w", t.TriggerID, err)
	}
	if pending {
		out = append(out, FireTime{AtMs: *t.NextFireAtMs, Local: time.UnixMilli(*t.NextFireAtMs).In(loc).Format(LocalTimeFormat), DueAtMs: *t.NextDueAtMs})
	}
	for _, ms := range next {
		out = append(out, FireTime{AtMs: ms, Local: time.UnixMilli(ms).In(loc).Format(LocalTimeFormat),
			DueAtMs: schedule.FireAt(t.TriggerID, ms, t.Cron.JitterMs)})
	}
	return out, nil
}

// lastOf is trigger id's newest Run read off runs, its Runs newest first
// (run.ListParams' order, by id as run.LastReader's): the detail carries
// the same lastRun as the triggers list without another read.
func lastOf(id string, runs []run.Run) map[string]run.Last {
	if len(runs) == 0 {
		return nil
	}
	r := runs[0]
	return map[string]run.Last{id: {TriggerID: id, RunID: r.ID, State: r.State, ScheduledForMs: r.ScheduledForMs, FinishedAtMs: r.FinishedAtMs, CreatedAtMs: r.CreatedAtMs, RerunOf: r.RerunOf, Origin: r.Origin}}
}

// NewTriggerDetail shapes d with its last runs (runsNext is the cursor of
// their listing, "" when no older Run exists), its newest ledgerLimit
// ledger entries and its next NextFireCount fire times at the store's
// clock reading (UpcomingFires), in the trigger's zone; none, with
// NextFiresUnknown saying why, when its stored cron does not parse here:
// the rest of it reads all the same. d is read with
// DetailLedgerRead(ledgerLimit) entries, one more than it shows, so that
// LedgerMore can tell whether older ones exist.
func NewTriggerDetail(d schedule.TriggerDetail, runs []run.Run, runsNext string, ledgerLimit int) (TriggerDetail, error) {
	out := TriggerDetail{
		Trigger: NewTriggerList([]schedule.TriggerStatus{d.TriggerStatus}, "", lastOf(d.TriggerID, runs)).Triggers[0],
		Paused:  d.Paused, PauseNote: d.PauseNote, PausedAtMs: d.PausedAtMs, NowMs: d.NowMs,
		NextFires: []FireTime{}, Runs: make([]Run, 0, len(runs)), RunsMore: runsNext != "", Ledger: make([]LedgerEntry, 0, len(d.Ledger)),
	}
	if err := schedule.CheckStoredCron(d.TriggerID, d.Cron); err != nil {
		out.NextFiresUnknown = err.Error()
	} else if out.NextFires, err = UpcomingFires(d.TriggerStatus, d.NowMs, NextFireCount); err != nil {
		return TriggerDetail{}, err
	}
	if d.Paused && d.PausedAtMs != nil && out.NextFiresUnknown == "" {
		out.DueWhilePaused = dueWhilePaused(d.Cron, *d.PausedAtMs, d.NowMs)
	}
	for _, r := range runs {
		out.Runs = append(out.Runs, NewRun(r))
	}
	if len(d.Ledger) > ledgerLimit {
		d.Ledger, out.LedgerMore = d.Ledger[:ledgerLimit], true
	}
	audit := d.Audit
	if len(audit) > schedule.AuditShown {
		audit, out.AuditMore = audit[:schedule.AuditShown], true
	}
	out.Audit, out.AuditUnreadable = make([]AuditRecord, 0, len(audit)), d.AuditUnreadable
	for _, a := range audit {
		out.Audit = append(out.Audit, AuditRecord{Action: a.Action, Actor: a.Actor, Note: a.Note, AtMs: a.AtMs})
	}
	for _, e := range d.Ledger {
		out.Ledger = append(out.Ledger, LedgerEntry{
			Reason: string(e.Reason), FirstMs: e.FirstMs, LastMs: e.LastMs, Count: e.Count, AtLeast: e.AtLeast,
			TriggerRevision: e.TriggerRevision, RecordedAtMs: e.RecordedAtMs, Compacted: e.Compacted, Backfilled: e.Backfilled,
		})
	}
	return out, nil
}
