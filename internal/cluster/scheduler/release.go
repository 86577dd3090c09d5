package scheduler

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// maxReleaseWait bounds each of the two waits a stop allows after it has
// cancelled the round: for a take on its way to answer (take), and for the
// claims to be given back (giveBack).
const maxReleaseWait = 2 * time.Second

// releaseWait is how long a stop waits for a take to answer, and then for
// the release of the claims: half the stop timeout at most, and never more
// than maxReleaseWait, so the two fit within the stop timeout.
func (c *Coordinator) releaseWait() time.Duration { return min(c.cfg.StopTimeout/2, maxReleaseWait) }

// take takes a page on a context a stop does not cancel at once. A claim
// is one autocommit statement whose tickets arrive in its answer: cut off
// by the stop after the database committed it, it would leave rows claimed
// that no ticket names, so nothing could give them back and they would
// wait out their lease. The take is instead given releaseWait after the
// stop to answer (it takes milliseconds), and the round then commits
// nothing more and gives the page back (settle).
func (c *Coordinator) take(ctx context.Context, cfg schedule.RoundConfig) (*schedule.Page, error) {
	tctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	// The grace timer is armed when ctx ends and disarmed when the take
	// returns, whichever order the two come in.
	var mu sync.Mutex
	var grace *time.Timer
	var returned bool
	unhook := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !returned {
			grace = time.AfterFunc(c.releaseWait(), cancel)
		}
	})
	defer func() {
		unhook()
		mu.Lock()
		defer mu.Unlock()
		returned = true
		if grace != nil {
			grace.Stop()
		}
	}()
	return schedule.TakePage(tctx, c.store, cfg)
}

// settle deals, as a round ends, with the claims its pages may still hold
// (schedule.Page.Held): a page claimed but never committed (beside a page
// in flight, or claimed ahead of an instant that had not come), and the
// tickets of a commit that did not settle them. Left alone, each such row
// waits out its lease — up to a minute — before another replica may take
// it, so a rolling restart or a lost connection during a burst would
// delay a page or more of occurrences by that much.
//
//   - Stopped (ctx done) with the database answering: it gives them back
//     at once (giveBack).
//   - The database lost: it keeps them for the replica's next activation
//     to give back through its fresh pool (Held); trying now could only
//     wait out its timeout.
//   - Otherwise the round ended normally, and what a commit did not
//     settle (a lost race, a decision that failed closed) keeps its claim
//     until it expires, as ever: giving it back would only have the same
//     row fail again sooner.
//
// Giving back is fenced per row by the full claim (schedule.Releaser), so
// it is safe whatever became of a ticket: a commit that did land before
// its reply was lost changed the row, and the release leaves it as it is.
func (c *Coordinator) settle(ctx context.Context, pages ...*schedule.Page) {
	lost := !c.latch.Available()
	if !lost && ctx.Err() == nil {
		return
	}
	var held []schedule.Ticket
	for _, p := range pages {
		if p != nil {
			held = append(held, p.Held()...)
		}
	}
	if len(held) == 0 {
		return
	}
	if lost {
		c.keptMu.Lock()
		c.kept = append(c.kept, held...)
		c.keptMu.Unlock()
		return
	}
	c.giveBack(ctx, held)
}

// giveBack releases held on a context of its own, bounded, since ctx (the
// stopped round's) is cancelled.
func (c *Coordinator) giveBack(ctx context.Context, held []schedule.Ticket) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.releaseWait())
	defer cancel()
	released, err := schedule.Release(rctx, c.store, held)
	failed := 0
	if err != nil {
		failed = len(held)
		c.log.Warn("could not give back the claims of a stopped round; they expire with their lease",
			append([]any{slog.String("code", CodeReleaseFailed), slog.String("owner", c.cfg.Owner), slog.Int("tickets", len(held))}, schedule.ErrorAttrs(err)...)...)
	}
	if released > 0 {
		c.log.Info("gave back the claims of a stopped round", slog.String("code", CodeReleased), slog.String("owner", c.cfg.Owner),
			slog.Int("rows", released))
	}
	if c.releases != nil {
		c.releases.ClaimsGivenBack(released, failed)
	}
}

// Held returns, once Stop has returned, the tickets whose claims the
// scheduler left held because it had lost its database, and forgets them:
// the replica's next activation gives them back through its fresh pool
// (schedule.Release). Their claims may have expired or been taken over by
// then; the release's fence leaves such rows as they are.
func (c *Coordinator) Held() []schedule.Ticket {
	c.keptMu.Lock()
	defer c.keptMu.Unlock()
	held := c.kept
	c.kept = nil
	return held
}
