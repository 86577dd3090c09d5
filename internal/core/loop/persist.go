package loop

import (
	"context"
	"time"
)

// Persist is how a write that must not be lost is tried until it is
// taken: a command's start or end, which a store refuses for as long as
// its disk is full or another process holds its write lock. Every try has
// its own time limit; a refusal for now is tried again after a pause that
// doubles from First up to Most, until the store takes the write, refuses
// it for good, GiveUp says it is no longer worth waiting for, or ctx ends.
type Persist struct {
	// First and Most bound the pause between two tries.
	First, Most time.Duration
	// PerTry bounds one try.
	PerTry time.Duration
	// RefusedForNow reports a refusal a later try may pass.
	RefusedForNow func(error) bool
	// OnRefused, if set, is told of each refusal for now, with when the
	// first try began: the caller says so once it matters.
	OnRefused func(began time.Time, err error)
	// GiveUp, if set, is asked after each refusal for now; true ends the
	// tries with that refusal.
	GiveUp func() bool
}

// Do calls write until the store takes it, and returns the error that
// ended the tries: nil once taken.
func (p Persist) Do(ctx context.Context, write func(context.Context) error) error {
	began, wait := time.Now(), p.First
	for {
		tryCtx, cancel := context.WithTimeout(ctx, p.PerTry)
		err := write(tryCtx)
		cancel()
		if err == nil || !p.RefusedForNow(err) || ctx.Err() != nil {
			return err
		}
		if p.OnRefused != nil {
			p.OnRefused(began, err)
		}
		if p.GiveUp != nil && p.GiveUp() {
			return err
		}
		if Sleep(ctx, wait) != nil {
			return err
		}
		wait = min(2*wait, p.Most)
	}
}
