package loop

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/cleanstop"
	"github.com/qinglong/qinglong/internal/testkit/leakcheck"
)

func TestMain(m *testing.M) { leakcheck.Main(m) }

func cfg() Config {
	return Config{Name: "test", Cadence: MinCadence, StopTimeout: time.Second}
}

func TestRoundsNeverOverlap(t *testing.T) {
	t.Parallel()
	var running, overlaps, rounds atomic.Int32
	l, err := New(cfg(), func(ctx context.Context) (bool, error) {
		if running.Add(1) > 1 {
			overlaps.Add(1)
		}
		defer running.Add(-1)
		rounds.Add(1)
		return rounds.Load() < 50, nil // full pages: next round at once
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = l.Start(context.Background())
	for i := 0; i < 20; i++ {
		l.Wake()
	}
	deadline := time.After(5 * time.Second)
	for rounds.Load() < 50 {
		select {
		case <-deadline:
			t.Fatalf("only %d rounds ran", rounds.Load())
		case <-time.After(time.Millisecond):
		}
	}
	if err := l.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if overlaps.Load() != 0 {
		t.Fatalf("%d overlapping rounds", overlaps.Load())
	}
}

func TestFullPageRunsNextRoundWithoutWaitingACadence(t *testing.T) {
	t.Parallel()
	c := cfg()
	c.Cadence = MaxCadence // an idle wait would never end within the test
	done := make(chan struct{})
	var rounds atomic.Int32
	l, _ := New(c, func(ctx context.Context) (bool, error) {
		if rounds.Add(1) == 5 {
			close(done)
		}
		return rounds.Load() < 5, nil
	})
	_ = l.Start(context.Background())
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("backlog did not drain back to back: %d rounds", rounds.Load())
	}
	if err := l.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestErrorsAndPanicsGoToSinkAndNeverStopTheLoop(t *testing.T) {
	t.Parallel()
	var sunk atomic.Int32
	c := cfg()
	c.OnError = func(error) { sunk.Add(1) }
	var rounds atomic.Int32
	l, _ := New(c, func(ctx context.Context) (bool, error) {
		n := rounds.Add(1)
		if n == 1 {
			panic("boom")
		}
		return true, errors.New("round failed")
	})
	_ = l.Start(context.Background())
	deadline := time.After(5 * time.Second)
	for sunk.Load() < 3 {
		select {
		case <-deadline:
			t.Fatalf("loop stopped after errors: %d sunk", sunk.Load())
		case <-time.After(5 * time.Millisecond):
		}
	}
	if err := l.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// stuckLoop is a loop, not started, whose first round ignores its
// cancellation until release is closed, with its shortest stop timeout;
// entered is closed once that round runs.
func stuckLoop() (l *Loop, c Config, entered, release chan struct{}) {
	c = cfg()
	c.StopTimeout = MinStopTimeout
	entered, release = make(chan struct{}), make(chan struct{})
	l, _ = New(c, func(ctx context.Context) (bool, error) {
		close(entered)
		<-release // ignores cancellation on purpose
		return false, nil
	})
	return l, c, entered, release
}

func TestStopIsBoundedAndReportsDrainTimeout(t *testing.T) {
	t.Parallel()
	l, c, entered, release := stuckLoop()
	_ = l.Start(context.Background())
	<-entered
	start := time.Now()
	err := l.Stop(context.Background())
	if !errors.Is(err, ErrDrainTimeout) {
		t.Fatalf("got %v, want drain timeout", err)
	}
	if waited := time.Since(start); waited > 5*c.StopTimeout {
		t.Fatalf("Stop waited %s with a %s timeout", waited, c.StopTimeout)
	}
	close(release)
	if err := l.Stop(context.Background()); err != nil && !errors.Is(err, ErrDrainTimeout) {
		t.Fatal(err)
	}
	// Let the goroutine exit before goleak looks.
	for i := 0; i < 100; i++ {
		if l.Stop(context.Background()) == nil {
			return
		}
	}
	t.Fatal("loop goroutine never exited after release")
}

// A stop whose caller's context has already ended gives up at once and
// says so, never that it waited out the stop timeout it did not wait.
func TestAStopGivenAnEndedContextSaysItsCallerEndedItNotTheTimeout(t *testing.T) {
	t.Parallel()
	l, c, entered, release := stuckLoop()
	_ = l.Start(context.Background())
	<-entered
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	err := l.Stop(ended)
	if !errors.Is(err, ErrDrainTimeout) || !strings.Contains(err.Error(), "its caller's context having ended (context canceled)") ||
		strings.Contains(err.Error(), "after "+c.StopTimeout.String()+":") {
		t.Fatalf("a stop given an ended context: %v", err)
	}
	close(release)
	select {
	case <-l.Ended():
	case <-time.After(5 * time.Second):
		t.Fatal("the loop did not end once its round returned")
	}
}

// After a Stop that gave up on its round, the loop has not ended until that
// round returns: what the round may still start is waited for from then.
func TestTheLoopEndsOnlyOnceTheRoundAStopGaveUpOnHasReturned(t *testing.T) {
	t.Parallel()
	l, _, entered, release := stuckLoop()
	select {
	case <-l.Ended():
	default:
		t.Fatal("a loop never started has not ended")
	}
	_ = l.Start(context.Background())
	<-entered
	if err := l.Stop(context.Background()); !errors.Is(err, ErrDrainTimeout) {
		t.Fatalf("got %v, want drain timeout", err)
	}
	select {
	case <-l.Ended():
		t.Fatal("the loop ended while its round was still running")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	select {
	case <-l.Ended():
	case <-time.After(5 * time.Second):
		t.Fatal("the loop did not end once its round returned")
	}
}

func TestStartStopCyclesUnderRace(t *testing.T) {
	t.Parallel()
	for i := 0; i < 300; i++ {
		l, _ := New(cfg(), func(ctx context.Context) (bool, error) { return false, nil })
		_ = l.Start(context.Background())
		_ = l.Start(context.Background())
		if err := l.Stop(context.Background()); err != nil {
			t.Fatalf("cycle %d: %v", i, err)
		}
		if err := l.Stop(context.Background()); err != nil {
			t.Fatalf("second stop, cycle %d: %v", i, err)
		}
		if err := l.Start(context.Background()); err == nil {
			t.Fatal("restarting a stopped loop must fail")
		}
	}
}

func TestConfigValidationNamesTheRange(t *testing.T) {
	t.Parallel()
	c := cfg()
	c.Cadence = time.Millisecond
	if _, err := New(c, func(context.Context) (bool, error) { return false, nil }); err == nil {
		t.Fatal("1ms cadence accepted")
	}
	c = cfg()
	c.StopTimeout = time.Minute
	if _, err := New(c, func(context.Context) (bool, error) { return false, nil }); err == nil {
		t.Fatal("1m stop timeout accepted")
	}
}

// TestARoundMayAskForAnEarlierWakeNeverALaterOne: a round that calls
// WakeWithin is followed after that wait instead of the cadence; a round
// that asks for more than the cadence, or fails, waits the cadence; the
// request lasts for one wait only.
func TestARoundMayAskForAnEarlierWakeNeverALaterOne(t *testing.T) {
	t.Parallel()
	c := cfg()
	c.Cadence = 2 * time.Second
	starts := make(chan time.Time, 8)
	var l *Loop
	var rounds atomic.Int32
	l, _ = New(c, func(ctx context.Context) (bool, error) {
		starts <- time.Now()
		switch rounds.Add(1) {
		case 1:
			l.WakeWithin(50 * time.Millisecond)
		case 2:
			l.WakeWithin(time.Hour)
		case 3:
			l.WakeWithin(time.Millisecond)
			return false, errors.New("round failed")
		}
		return false, nil
	})
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	cleanstop.AtCleanup(t, "the loop", 10*time.Second, l.Stop)
	var at [4]time.Time
	for i := range at {
		select {
		case at[i] = <-starts:
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d never started", i+1)
		}
	}
	if d := at[1].Sub(at[0]); d >= c.Cadence/2 {
		t.Fatalf("a round that asked for 50ms was followed after %s", d)
	}
	if d := at[2].Sub(at[1]); d < c.Cadence*9/10 {
		t.Fatalf("a round that asked for an hour was followed after %s, before the cadence %s", d, c.Cadence)
	}
	if d := at[3].Sub(at[2]); d < c.Cadence*9/10 {
		t.Fatalf("a failed round was followed after %s, before the cadence %s", d, c.Cadence)
	}
}
