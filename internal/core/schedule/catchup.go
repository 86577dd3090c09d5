package schedule

// applyCatchUpWindow narrows a fire_once admission to the trigger's
// catch-up window: a missed occurrence whose jittered due time is older
// than now − window is passed (PassCatchUpWindow), and the oldest one
// inside the window is admitted instead. When the window holds an
// occurrence that is not due yet (its jitter puts it after now) the row
// waits for it; when it holds none, every missed occurrence is passed and
// the cursor moves past now as for any admission.
//
// The search starts at now − window − jitter: an occurrence before that is
// older than the window whatever its jitter, and every occurrence from
// now − window on is inside it, so it visits at most jitter / period + 1
// occurrences.
func applyCatchUpWindow(in Input, d Decision) Decision {
	if !in.HasCatchUpWindow || in.NowMs-d.FireAtMs <= in.CatchUpWindowMs {
		return d
	}
	oldest := in.NowMs - in.CatchUpWindowMs
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
		passed := append(d.Passed, passOver(in, PassCatchUpWindow, d.DueMs, o-1)...)
		if at > in.NowMs {
			return Decision{Action: SkipLate, DueMs: d.DueMs, NextFireAtMs: o, Passed: passed}
		}
		d.ScheduledForMs, d.FireAtMs, d.Passed = o, at, passed
		return d
	}
	return Decision{Action: SkipLate, DueMs: d.DueMs, NextFireAtMs: d.NextFireAtMs, Passed: append(d.Passed, passOver(in, PassCatchUpWindow, d.DueMs, last)...)}
}
