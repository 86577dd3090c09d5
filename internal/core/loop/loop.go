// Package loop runs a round function on a cadence with explicit, bounded
// start and stop. It is the lifecycle every scheduler profile embeds.
//
// Guarantees:
//   - rounds never overlap: one goroutine runs them in sequence;
//   - a round that reports more work (a full page that made progress:
//     schedule.Summary.StartNextAtOnce) is followed at once by the next
//     round, so a backlog drains at storage speed, while an idle loop wakes
//     once per cadence — or sooner, when the round named an earlier instant
//     with WakeWithin (the cadence is the ceiling of every wait);
//   - a round's error goes to the error sink and never stops the loop;
//   - Stop is idempotent, cancels the running round's context and waits at
//     most its timeout, then returns ErrDrainTimeout naming what still ran.
package loop

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Limits of the loop's settings.
const (
	MinCadence     = 250 * time.Millisecond
	MaxCadence     = time.Hour
	MinStopTimeout = 100 * time.Millisecond
	MaxStopTimeout = 30 * time.Second
)

// ErrDrainTimeout is returned by Stop when the running round did not finish
// within the stop timeout.
var ErrDrainTimeout = errors.New("drain timeout")

// Round runs once. more=true asks for the next round without waiting.
type Round func(ctx context.Context) (more bool, err error)

// Config of a loop.
type Config struct {
	// Name appears in drain-timeout errors.
	Name string
	// Cadence is the wait between rounds that found no more work.
	Cadence time.Duration
	// StopTimeout bounds Stop.
	StopTimeout time.Duration
	// OnError receives round errors; it must not block for long.
	OnError func(error)
}

// Validate names the setting and its allowed range.
func (c Config) Validate() error {
	if c.Cadence < MinCadence || c.Cadence > MaxCadence {
		return fmt.Errorf("%s cadence %s is outside %s–%s", c.Name, c.Cadence, MinCadence, MaxCadence)
	}
	if c.StopTimeout < MinStopTimeout || c.StopTimeout > MaxStopTimeout {
		return fmt.Errorf("%s stop timeout %s is outside %s–%s", c.Name, c.StopTimeout, MinStopTimeout, MaxStopTimeout)
	}
	return nil
}

// Loop is a started-or-stopped round runner.
type Loop struct {
	cfg   Config
	round Round

	mu      sync.Mutex
	cancel  context.CancelFunc
	done    chan struct{}
	wake    chan struct{}
	inRound bool
	stopped bool
	// within is the wait the running round asked for with WakeWithin; a
	// negative value means none.
	within time.Duration
}

// New validates cfg; the loop does nothing until Start.
func New(cfg Config, round Round) (*Loop, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if round == nil {
		return nil, errors.New("loop: nil round")
	}
	return &Loop{cfg: cfg, round: round, wake: make(chan struct{}, 1), within: -1}, nil
}

// Start launches the loop; the first round begins immediately. Starting a
// running loop is a no-op; a stopped loop cannot be restarted.
func (l *Loop) Start(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return fmt.Errorf("%s: cannot start a stopped loop; create a new one", l.cfg.Name)
	}
	if l.done != nil {
		return nil
	}
	ctx, l.cancel = context.WithCancel(context.WithoutCancel(ctx))
	l.done = make(chan struct{})
	go l.run(ctx, l.done)
	return nil
}

// Wake asks for a round as soon as the current one (if any) ends.
func (l *Loop) Wake() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *Loop) run(ctx context.Context, done chan struct{}) {
	defer close(done)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-l.wake:
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
		}
		l.setInRound(true)
		more, err := l.safeRound(ctx)
		within := l.setInRound(false)
		if err != nil && ctx.Err() == nil && l.cfg.OnError != nil {
			l.cfg.OnError(err)
		}
		if ctx.Err() != nil {
			return
		}
		switch {
		case more && err == nil:
			timer.Reset(0)
		case err == nil && within >= 0 && within < l.cfg.Cadence:
			timer.Reset(within)
		default:
			timer.Reset(l.cfg.Cadence)
		}
	}
}

// safeRound turns a panicking round into an error so one bad round never
// kills the scheduler.
func (l *Loop) safeRound(ctx context.Context) (more bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: round panicked: %v", l.cfg.Name, r)
		}
	}()
	return l.round(ctx)
}

// setInRound marks a round running or ended; it clears and returns the
// wait the round asked for.
func (l *Loop) setInRound(v bool) (within time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inRound = v
	within, l.within = l.within, -1
	return within
}

// WakeWithin is called by a round to ask that the wait after it be at most
// d (never less than zero, never more than the cadence) instead of the
// cadence: the round knows when its next work falls due. It applies only
// to the wait after the round that called it; a round that fails waits
// the cadence regardless.
func (l *Loop) WakeWithin(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if d < 0 {
		d = 0
	}
	if l.within < 0 || d < l.within {
		l.within = d
	}
}

// Ended is closed once the loop's goroutine has returned, so no round runs
// or will run: after a Stop that timed out, the round it gave up on may
// still be running, and whoever must not race it (e.g. wait for the work
// that round starts) waits for this. A loop never started has ended.
func (l *Loop) Ended() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done == nil {
		ended := make(chan struct{})
		close(ended)
		return ended
	}
	return l.done
}

// Stop cancels the loop and waits for the running round, at most the stop
// timeout (or ctx, whichever ends first). Idempotent.
func (l *Loop) Stop(ctx context.Context) error {
	l.mu.Lock()
	l.stopped = true
	cancel, done := l.cancel, l.done
	l.mu.Unlock()
	if done == nil {
		return nil
	}
	cancel()
	begun := time.Now()
	timer := time.NewTimer(l.cfg.StopTimeout)
	defer timer.Stop()
	// waited says how long the stop waited: its timeout, or as long as
	// its caller let it — a stop given an ended context waits not at all,
	// and naming the timeout then would send whoever reads it after a
	// setting that played no part.
	waited := fmt.Sprintf("after %s", l.cfg.StopTimeout)
	select {
	case <-done:
		return nil
	case <-timer.C:
	case <-ctx.Done():
		waited = fmt.Sprintf("after %s, its caller's context having ended (%v)", time.Since(begun).Round(time.Millisecond), context.Cause(ctx))
	}
	l.mu.Lock()
	busy := l.inRound
	l.mu.Unlock()
	what := "loop goroutine"
	if busy {
		what = "a round"
	}
	return fmt.Errorf("%s: %w %s: %s was still running", l.cfg.Name, ErrDrainTimeout, waited, what)
}
