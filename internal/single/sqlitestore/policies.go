package sqlitestore

import (
	"database/sql"

	"github.com/qinglong/qinglong/internal/core/trigger"
)

// policyCols receives a trigger revision's time-policy columns
// (migration trigger_policies): jitter_ms, start_at_ms, end_at_ms,
// catch_up_window_ms and (migration overlap_policy) overlap_policy, in that
// order.
type policyCols struct {
	jitter             int64
	start, end, window sql.NullInt64
	overlap            sql.NullString
}

func (p *policyCols) dest() []any {
	return []any{&p.jitter, &p.start, &p.end, &p.window, &p.overlap}
}

// into sets c's policies; a NULL column is an absent policy.
func (p policyCols) into(c *trigger.Cron) {
	c.JitterMs, c.StartAtMs, c.EndAtMs = p.jitter, p.start.Int64, p.end.Int64
	c.CatchUpWindowMs, c.HasCatchUpWindow = p.window.Int64, p.window.Valid
	c.Overlap = trigger.OverlapPolicy(p.overlap.String)
}

// policyArgs are c's policies as the columns store them.
func policyArgs(c trigger.Cron) []any {
	opt := func(v int64) any {
		if v == 0 {
			return nil
		}
		return v
	}
	var window any
	if c.HasCatchUpWindow {
		window = c.CatchUpWindowMs
	}
	var overlap any
	if c.Overlap != trigger.OverlapAllow {
		overlap = string(c.Overlap)
	}
	return []any{c.JitterMs, opt(c.StartAtMs), opt(c.EndAtMs), window, overlap}
}
