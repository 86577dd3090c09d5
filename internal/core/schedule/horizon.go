package schedule

import (
	"context"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// TakeHorizon is what a take learned, in the same round trip, about when
// the next row falls due. Both fields are the store's own clock (the
// database's in the cluster): the scheduler only uses them to decide when
// to wake, never to decide an occurrence.
type TakeHorizon struct {
	// NowMs is the store's clock when the take was answered.
	NowMs int64
	// NextDueMs is the earliest cursor of a row nobody holds that falls due
	// strictly after the instant the take read the clock to claim by (or
	// began, when the store reads it again for NowMs): a row that fell due
	// while the take ran may be reported, at or before NowMs, so the
	// scheduler claims again at once; nil when there is none.
	NextDueMs *int64
}

// HorizonTaker is a Store whose take also reports its horizon. A store
// that does not implement it leaves its scheduler waking on the cadence.
type HorizonTaker interface {
	ScheduleTakeHorizon(ctx context.Context, p TakeParams) ([]Ticket, TakeHorizon, error)
}

// NextDue is when the next round is likely to find work, for the loop to
// wake at; it never feeds a decision.
type NextDue struct {
	// AtMs is the earliest instant, in the store's clock, at which a row
	// known to this round falls due: a row nobody held at the take, or a
	// row of this page at the cursor its decision moves it to.
	AtMs int64
	// ClockOffsetMs is the store's clock minus the local wall clock,
	// measured at the take: the store reads its clock last, after the
	// claim, so it is paired with the local reading taken when the answer
	// arrived (a reading at the middle of the round trip would count half
	// the claim's execution as offset, and wake the replica that much
	// early). A replica whose wall clock is wrong wakes early or late by
	// the error; nothing else changes.
	ClockOffsetMs int64
	// ClockOffsetMaxMs is the store's clock minus the local wall clock
	// when the take was sent: the store read its clock after that, so the
	// offset is at most this. The true offset lies in [ClockOffsetMs,
	// ClockOffsetMaxMs]; an answer delayed on its way back (the claim's
	// commit flush, a busy machine) widens the range on the late side.
	ClockOffsetMaxMs int64
}

// LocalAt is the local wall-clock instant at which the store's clock reads
// AtMs, by the offset measured at the take.
func (n NextDue) LocalAt() time.Time { return time.UnixMilli(n.AtMs - n.ClockOffsetMs) }

// Wait is how long to wait, from the local wall-clock reading now, before
// the next round: until LocalAt plus spread, never less than spread and
// never more than cadence; the cadence when n is nil (nothing known). The
// offset is measured afresh at every take, so a local clock that is merely
// wrong cancels out; one stepped between the take and the wake-up moves
// only this wait — never below the spread, so a clock stepped ahead makes
// a scheduler poll every few milliseconds until the row is due rather than
// spin, and never beyond the cadence.
func (n *NextDue) Wait(now time.Time, cadence, spread time.Duration) time.Duration {
	if n == nil {
		return cadence
	}
	return min(max(n.LocalAt().Sub(now), 0)+spread, cadence)
}

// takeWithHorizon takes a page (ahead, up to dueByMs, when it is above 0)
// and, when the store reports it, the horizon with the store-minus-local
// clock offset measured at the take.
func takeWithHorizon(ctx context.Context, st Store, p TakeParams, dueByMs int64) ([]Ticket, *NextDue, error) {
	take := func() ([]Ticket, TakeHorizon, error) { return st.(HorizonTaker).ScheduleTakeHorizon(ctx, p) }
	if dueByMs > 0 {
		at, ok := st.(AheadTaker)
		if !ok {
			return nil, nil, qlerror.New(qlerror.Invalid, "this store cannot claim ahead of a due instant (it takes no claims); leave claim-ahead off")
		}
		take = func() ([]Ticket, TakeHorizon, error) { return at.ScheduleTakeAhead(ctx, p, dueByMs) }
	} else if _, ok := st.(HorizonTaker); !ok {
		tickets, err := st.ScheduleTake(ctx, p)
		return tickets, nil, err
	}
	sent := time.Now()
	tickets, h, err := take()
	if err != nil {
		return tickets, nil, err
	}
	next := &NextDue{ClockOffsetMs: h.NowMs - time.Now().UnixMilli(), ClockOffsetMaxMs: h.NowMs - sent.UnixMilli()}
	if h.NextDueMs != nil {
		next.AtMs = *h.NextDueMs
	} else {
		next.AtMs = noneDue
	}
	return tickets, next, nil
}

// noneDue stands for "no row known to fall due": later than any cadence.
const noneDue = int64(1) << 62

// pageNextDue lowers next to the earliest cursor this page's decisions
// move their rows to (the jittered due time of each new cursor; an ended
// row never falls due again): those rows were held by this round at the take, so
// the take's horizon could not see them. It re-derives each decision (pure,
// no I/O); a ticket that cannot be decided contributes nothing. Only an
// earlier wake can come of a decision whose commit did not land, and an
// early wake decides nothing.
func pageNextDue(next *NextDue, tickets []Ticket, graceMs int64) *NextDue {
	if next == nil {
		return nil
	}
	for _, tk := range tickets {
		d, err := DecideTicket(tk, graceMs)
		if err == nil && !d.Ended && d.NextDueAtMs < next.AtMs {
			next.AtMs = d.NextDueAtMs
		}
	}
	if next.AtMs == noneDue {
		return nil
	}
	return next
}
