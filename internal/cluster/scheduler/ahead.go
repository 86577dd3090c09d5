package scheduler

import (
	"context"
	"log/slog"

	"github.com/qinglong/qinglong/internal/core/loop"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// claimAhead claims, ClaimAhead before the due instant the last round
// learned, the rows that fall due at it, and commits them once that
// instant has come (docs/architecture.md, "Claim ahead"). A burst of rows
// due at one instant is then claimed while nothing else is due, and at the
// instant only the admission's own lock and write remain: the claim writes
// every row it takes, about a fifth of a burst's server time.
//
// Pages are claimed until the instant comes or a page comes back short,
// so how much one replica holds is bounded by the time it had; replicas
// that wake together split the rows (SKIP LOCKED). The pages commit one
// after the other from the local instant at which the database clock
// reaches the due time by the offset's lower bound, so the database clock
// has reached it (the store waits for it otherwise); each ticket is decided
// at its row's due time, which the store verifies. A replica stopped
// before it commits gives the claims back, for another replica to take at
// once; one cut off from its database keeps them for its next activation
// to give back (settle).
func (c *Coordinator) claimAhead(ctx context.Context) error {
	t := c.target
	c.target = nil
	if t == nil {
		return nil
	}
	at := t.LocalAt()
	if left := at.Sub(c.now()); left <= 0 || left > c.cfg.ClaimAhead+maxWakeSpread {
		// Woken for something else (a change to the schedules), or late:
		// the round takes what is due and plans its wake afresh.
		return nil
	}
	cfg := c.roundConfig()
	cfg.DueByMs = t.AtMs
	var pages []*schedule.Page
	defer func() { c.settle(ctx, pages...) }()
	for c.now().Before(at) && c.latch.Available() && ctx.Err() == nil {
		page, err := c.take(ctx, cfg)
		if err != nil {
			c.observe(err)
			return err
		}
		pages = append(pages, page)
		if !page.Full() {
			break
		}
	}
	if len(pages) == 0 {
		return nil
	}
	rows := 0
	for _, page := range pages {
		rows += page.Taken()
	}
	c.log.Debug("claimed ahead of a due instant", slog.String("code", CodeClaimedAhead), slog.String("owner", c.cfg.Owner),
		slog.Int64("due_at_ms", t.AtMs), slog.Int("pages", len(pages)), slog.Int("rows", rows),
		slog.Int64("ahead_ms", at.Sub(c.now()).Milliseconds()))
	if loop.Sleep(ctx, max(at.Sub(c.now()), 0)) != nil || !c.latch.Available() {
		return nil
	}
	for _, page := range pages {
		c.report(ctx, page.Commit(ctx, c.store))
		if ctx.Err() != nil || !c.latch.Available() {
			return nil
		}
	}
	return nil
}
