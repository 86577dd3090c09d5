package pgstore

import "github.com/qinglong/qinglong/internal/core/trigger"

// policyCols receives a trigger revision's time-policy columns (migration
// trigger-policies, overlap-policy): jitter_ms, start_at_ms, end_at_ms,
// catch_up_window_ms, overlap_policy, in that order.
type policyCols struct {
	jitter             int64
	start, end, window *int64
	overlap            *string
}

func (p *policyCols) dest() []any { return []any{&p.jitter, &p.start, &p.end, &p.window, &p.overlap} }

// into sets c's policies; a NULL column is an absent policy.
func (p policyCols) into(c *trigger.Cron) {
	c.JitterMs = p.jitter
	c.StartAtMs, c.EndAtMs = orZero(p.start), orZero(p.end)
	c.CatchUpWindowMs, c.HasCatchUpWindow = orZero(p.window), p.window != nil
	if p.overlap != nil {
		c.Overlap = trigger.OverlapPolicy(*p.overlap)
	}
}

// overlapValue is c's overlap policy as the column stores it (NULL: allow).
func overlapValue(c trigger.Cron) *string {
	if c.Overlap == trigger.OverlapAllow {
		return nil
	}
	o := string(c.Overlap)
	return &o
}

func orZero(v *int64) int64 {
	if v == nil {
		return 0
	}
	return *v
}

// policyValues are c's policies as the columns store them.
func policyValues(c trigger.Cron) (jitter int64, start, end, window *int64) {
	opt := func(v int64) *int64 {
		if v == 0 {
			return nil
		}
		return &v
	}
	if c.HasCatchUpWindow {
		w := c.CatchUpWindowMs
		window = &w
	}
	return c.JitterMs, opt(c.StartAtMs), opt(c.EndAtMs), window
}
