package schedule

// OnTimeMs is how late an occurrence may be decided and still count as on
// time, whatever the policy's window: a decision always comes some
// milliseconds after the instant it is about (the wake-up, the claim, a
// busy database), so a window of 0 — a grace of 0, `catchUpWindow: 0s` —
// would otherwise pass over every occurrence, the on-time ones too, and
// the trigger would never run.
const OnTimeMs = 1000

// narrowToWindow narrows an admission to the policy's window: a missed
// occurrence whose jittered due time is older than now − window (at least
// OnTimeMs) is passed with reason, and the oldest one inside the window is
// admitted instead — under skip the window is the misfire grace, under
// fire_once the catch-up window. When the window holds an occurrence that
// is not due yet (its jitter puts it after now) the row waits for it; when
// it holds none, every missed occurrence is passed and the cursor moves
// past now as for any admission.
//
// The search starts at now − window − jitter: an occurrence before that is
// older than the window whatever its jitter, and every occurrence from
// now − window on is inside it, so it visits at most jitter / period + 1
// occurrences.
func narrowToWindow(in Input, d Decision, windowMs int64, reason PassReason) Decision {
	windowMs = max(windowMs, OnTimeMs)
	if in.NowMs-d.FireAtMs <= windowMs {
		return d
	}
	oldest := in.NowMs - windowMs
	last := in.NowMs
	if in.EndAtMs != 0 {
		last = min(last, in.EndAtMs)
	}
	lo := max(d.DueMs+1, oldest-in.JitterMs)
	for o, ok := in.Schedule.Next(lo - 1); ok && o <= last; o, ok = in.Schedule.Next(o) {
		at := fireAt(in, o)
		if at < oldest {
			continue
		}
		passed := append(d.Passed, passOver(in, reason, d.DueMs, o-1)...)
		if at > in.NowMs {
			return Decision{Action: SkipLate, DueMs: d.DueMs, NextFireAtMs: o, Passed: passed}
		}
		d.ScheduledForMs, d.FireAtMs, d.Passed = o, at, passed
		return d
	}
	return Decision{Action: SkipLate, DueMs: d.DueMs, NextFireAtMs: d.NextFireAtMs, Passed: append(d.Passed, passOver(in, reason, d.DueMs, last)...)}
}
