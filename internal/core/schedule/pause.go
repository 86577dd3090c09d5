package schedule

// PauseSpan is a schedule row's last pause, from the instant it was paused
// to the instant it was resumed (both the store's clock: database time in
// the cluster). A paused row is never taken; once resumed, the occurrences
// that fell due in [FromMs, UntilMs) are passed over as PassPaused rather
// than as misfires or collapsed ones. The span is part of the row's facts,
// so a decision that uses it stays pure and re-derivable by the commit.
type PauseSpan struct {
	FromMs  int64
	UntilMs int64
}

// contains reports whether an occurrence at ms fell due while paused.
func (p *PauseSpan) contains(ms int64) bool {
	return p != nil && ms >= p.FromMs && ms < p.UntilMs
}

func samePause(a, b *PauseSpan) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// PauseSpanOf is the span a schedule row's stored pause columns describe:
// none while the row is paused or was never resumed.
func PauseSpanOf(paused bool, pausedAtMs, resumedAtMs *int64) *PauseSpan {
	if paused || pausedAtMs == nil || resumedAtMs == nil {
		return nil
	}
	return &PauseSpan{FromMs: *pausedAtMs, UntilMs: *resumedAtMs}
}

// passOver is what a decision passes over in [fromMs, toMs] for reason: one
// entry per stretch, the stretch inside the row's pause recorded as
// PassPaused. Nil when the range holds no occurrence.
func passOver(in Input, reason PassReason, fromMs, toMs int64) []Passed {
	type stretch struct {
		reason   PassReason
		from, to int64
	}
	stretches := []stretch{{reason, fromMs, toMs}}
	if p := in.Pause; p != nil && p.FromMs <= toMs && p.UntilMs > fromMs {
		stretches = []stretch{
			{reason, fromMs, p.FromMs - 1},
			{PassPaused, max(fromMs, p.FromMs), min(toMs, p.UntilMs-1)},
			{reason, p.UntilMs, toMs},
		}
	}
	var out []Passed
	for _, s := range stretches {
		if p, ok := PassRange(in.Schedule, s.reason, s.from, s.to); ok {
			out = append(out, p)
		}
	}
	return out
}
