package schedule

import "github.com/qinglong/qinglong/internal/core/cron"

// PassReason says why a nominal occurrence got no Run. Every occurrence a
// decision passes over is recorded in the occurrence ledger with one of
// these, in the transaction that moves the cursor past it, so "it was due
// and did not run" always has an answer.
type PassReason string

// The reasons an occurrence is passed over.
const (
	// PassMisfire: later than the grace period under `misfire: skip`.
	PassMisfire PassReason = "misfire"
	// PassCollapsed: `misfire: fire_once` admitted the oldest missed
	// occurrence; the later missed ones collapse into that one Run.
	PassCollapsed PassReason = "collapsed"
	// PassCatchUpWindow: `misfire: fire_once`, but the occurrence is older
	// than the trigger's catch-up window.
	PassCatchUpWindow PassReason = "catch_up_window"
	// PassPaused: the trigger was paused when the occurrence fell due.
	PassPaused PassReason = "paused"
	// PassOutsideBounds: the occurrence lies outside the trigger's
	// startAt/endAt bounds.
	PassOutsideBounds PassReason = "outside_bounds"
	// PassDisabled: the trigger was disabled while the occurrence was due.
	PassDisabled PassReason = "disabled"
	// PassOverlap: the trigger's overlap policy refused the occurrence a
	// Run: skip, while an earlier Run of it had not finished; queue_one,
	// while one Run of it already waited behind an unfinished one.
	PassOverlap PassReason = "overlap"
	// PassRepublished: a new revision of the trigger was published before
	// a decision reached the occurrence; it belonged to the replaced
	// revision, which the ledger entry names (republish.go).
	PassRepublished PassReason = "republished"
	// PassProjectArchived: the trigger's project was archived when the
	// occurrence fell due; the reactivation records it (reactivate.go).
	PassProjectArchived PassReason = "project_archived"
	// PassClockWentBack: the occurrence already has a Run, admitted while
	// the clock read later than it does now; after the clock went back the
	// cursor was moved back before it (clockback.go), and an occurrence is
	// never admitted twice.
	PassClockWentBack PassReason = "clock_went_back"
	// PassRestored: a single-node server started on a backup's copy with
	// `--after-restore skip-missed` passed over the occurrences the copy
	// says were missed, which the old server may have run after the
	// backup's snapshot (RestoredTicket). The cluster never writes it: its
	// database is restored with pg_restore, which no server is told of.
	PassRestored PassReason = "restored"
)

// PassReasons lists every reason an occurrence is passed over.
var PassReasons = []PassReason{PassMisfire, PassCollapsed, PassCatchUpWindow, PassPaused, PassOutsideBounds, PassDisabled, PassOverlap, PassRepublished, PassProjectArchived, PassClockWentBack, PassRestored}

// Passed is a run of consecutive nominal occurrences passed over for one
// reason: the first and last scheduled instants and how many there are.
// A long outage of a frequent trigger is one entry, not one per second.
type Passed struct {
	Reason  PassReason
	FirstMs int64
	LastMs  int64
	// Count is exact up to MaxPassedCount; AtLeast marks a count that
	// stopped there.
	Count   int64
	AtLeast bool
}

// MaxPassedCount bounds the occurrences one Passed entry counts one by one:
// a decision must stay cheap however long a replica was away.
const MaxPassedCount = 10_000

// PassRange counts the nominal occurrences of s in [fromMs, toMs] and
// returns them as one Passed entry; ok is false when there are none.
func PassRange(s *cron.Schedule, reason PassReason, fromMs, toMs int64) (p Passed, ok bool) {
	if s == nil || fromMs > toMs {
		return Passed{}, false
	}
	p.Reason = reason
	for at, more := s.Next(fromMs - 1); more && at <= toMs; at, more = s.Next(at) {
		if p.Count == 0 {
			p.FirstMs = at
		}
		p.LastMs = at
		p.Count++
		if p.Count == MaxPassedCount {
			if last, found := lastBefore(s, at, toMs); found {
				p.LastMs, p.AtLeast = last, true
			}
			break
		}
	}
	return p, p.Count > 0
}

// lastBefore is the last occurrence of s after afterMs and at or before
// toMs, found by bisection on Next so that it costs O(log span) steps
// rather than one per occurrence.
func lastBefore(s *cron.Schedule, afterMs, toMs int64) (int64, bool) {
	if n, ok := s.Next(afterMs); !ok || n > toMs {
		return 0, false
	}
	// Invariant: an occurrence lies in (lo, toMs], none in (hi, toMs].
	lo, hi := afterMs, toMs
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if n, ok := s.Next(mid); ok && n <= toMs {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, true
}
