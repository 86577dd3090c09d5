package schedule

import "github.com/qinglong/qinglong/internal/core/trigger"

// OverlapVerdict is what a trigger's overlap policy makes of one admission.
type OverlapVerdict int

// The verdicts.
const (
	// OverlapAdmit: admit as decided.
	OverlapAdmit OverlapVerdict = iota
	// OverlapPass: no Run; the occurrence is passed over (PassOverlap).
	OverlapPass
	// OverlapCancelThenAdmit: every unfinished Run of the trigger gets a
	// cancel intent, then the occurrence is admitted as a Run that waits,
	// as OverlapAdmitWaiting's does, until they have finished. A running
	// Run's command stops only when its executor or worker acts on the
	// intent (a single node at once, a cluster worker at its next lease
	// renewal), and the new command must not run beside it meanwhile.
	OverlapCancelThenAdmit
	// OverlapAdmitWaiting: admit a Run that no dispatcher starts while an
	// earlier Run of its trigger is unfinished.
	OverlapAdmitWaiting
)

// OverlapOf is the verdict of policy on an admission of a trigger that has
// unfinished Runs (queued, dispatching, running or waiting to retry; a lost
// Run counts as finished), waiting saying whether one of them has not
// started yet — queued (or being created) with its first attempt still in
// the dispatcher's queue; a Run queued again to retry, or after it was
// lost, has started, and is the Run a queue_one occurrence waits behind:
// skip passes it over while any is unfinished,
// queue_one admits it to wait behind them unless one waits already (then it
// passes it over: at most one Run of the trigger waits, whether it waits
// behind a running one, for a slot, or for a server that was stopped),
// cancel_previous cancels them first and admits it to wait until they have
// stopped. Adapters read unfinished under the schedule row's lock, in
// the admission's own transaction: every admission of a trigger locks and
// writes that row, so each one sees every Run admitted before it, and a
// Run that finishes or starts meanwhile can only turn a pass into an admit
// later, never two admits into one window (docs/architecture.md, "Overlap").
func OverlapOf(policy trigger.OverlapPolicy, unfinished int, waiting bool) OverlapVerdict {
	switch {
	case unfinished == 0 || policy == trigger.OverlapAllow:
		return OverlapAdmit
	case policy == trigger.OverlapCancelPrevious:
		return OverlapCancelThenAdmit
	case policy == trigger.OverlapQueueOne && !waiting:
		return OverlapAdmitWaiting
	}
	return OverlapPass
}

// OverlapRefusedBeside names, of a trigger's unfinished Runs (oldest
// first, as adapters read them) whose overlap policy OverlapOf passed an
// admission over, the Run it was refused beside. Under queue_one that is
// waiting, the Run that has not started yet (waiting true): that one waits
// already is why no other may, not that the oldest is unfinished. Under
// skip it is the oldest unfinished one.
func OverlapRefusedBeside(policy trigger.OverlapPolicy, unfinished []string, waiting string) (runID string, isWaiting bool) {
	if len(unfinished) == 0 {
		return "", false
	}
	if policy == trigger.OverlapQueueOne && waiting != "" {
		return waiting, true
	}
	return unfinished[0], false
}

// OverlapReplaced names, of a trigger's unfinished Runs (oldest first, as
// adapters read them) that cancel_previous cancels for an admission, the
// Run whose place in the dispatch order the admitted Run takes: the
// newest. The place taken is that Run's own (its id, on SQLite its latest
// attempt's), never one it took over in turn, so a trigger firing faster
// than the slots drain moves its replacement back one period at each
// occurrence and passes each waiting Run at most once: it cannot starve
// the triggers sharing its slots. A backfilled Run's place is behind every
// other, so adapters give the replacement of one its own place instead.
func OverlapReplaced(unfinished []string) string {
	if len(unfinished) == 0 {
		return ""
	}
	return unfinished[len(unfinished)-1]
}

// OverlapPassed is the decision an admission becomes when its overlap
// verdict is OverlapPass: the admission passed over as PassOverlap
// (PassedAs).
func (d Decision) OverlapPassed() Decision { return d.PassedAs(PassOverlap) }

// PassedAs is the decision an admission becomes when its store passes it
// over for reason: the cursor moves exactly as the admission would have
// moved it, no Run is written, and the occurrence it would have admitted
// is passed over with reason, in scheduled-time order among the
// occurrences the admission already passed over. Any other decision is
// returned as it is.
func (d Decision) PassedAs(reason PassReason) Decision {
	if d.Action != Admit {
		return d
	}
	entry := Passed{Reason: reason, FirstMs: d.ScheduledForMs, LastMs: d.ScheduledForMs, Count: 1}
	out := d
	out.Action, out.ScheduledForMs, out.FireAtMs = SkipLate, 0, 0
	out.Passed = make([]Passed, 0, len(d.Passed)+1)
	placed := false
	for _, p := range d.Passed {
		if !placed && p.FirstMs > entry.FirstMs {
			out.Passed, placed = append(out.Passed, entry), true
		}
		out.Passed = append(out.Passed, p)
	}
	if !placed {
		out.Passed = append(out.Passed, entry)
	}
	return out
}
