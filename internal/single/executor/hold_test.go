package executor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// heldGate is the server's gate in small: each pass takes a read lock,
// which setting the hold takes for writing, and is refused once it is set.
type heldGate struct {
	mu   sync.RWMutex
	held bool
	// passed counts the passes let through; refused is told of each
	// pass refused.
	passed  atomic.Int64
	refused chan struct{}
}

var errHeld = errors.New("held")

func (g *heldGate) Admit() (func(), error) {
	g.mu.RLock()
	if g.held {
		g.mu.RUnlock()
		g.refused <- struct{}{}
		return nil, errHeld
	}
	return g.mu.RUnlock, nil
}

// set holds or releases the server, as the watch's look does: it waits
// out every pass in progress.
func (g *heldGate) set(held bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.held = held
}

// holdOnPending is the store a round reads its pending attempts from,
// which sets the hold just after that read: the window between a round
// finding the server not held and its starting a command.
type holdOnPending struct {
	Store
	gate *heldGate
	once sync.Once
	// hit is closed once the hold was set inside the window, after a pass
	// the gate let through in the same round.
	hit chan struct{}
}

func (s *holdOnPending) AttemptsPending(ctx context.Context, limit int) ([]run.Attempt, error) {
	pending, err := s.Store.AttemptsPending(ctx, limit)
	if len(pending) > 0 {
		s.once.Do(func() {
			if s.gate.passed.Load() > 0 {
				s.gate.set(true)
				close(s.hit)
			}
		})
	}
	return pending, err
}

// TestNoCommandStartsOnceTheHoldIsSetEvenByARoundThatFoundItUnset: a
// round that passed the gate (the server not held) and read a pending
// attempt, the hold set just then, starts no command: the attempt's start
// passes the gate again, is refused, and the attempt stays waiting, its
// command not run. Released, the next round starts it.
func TestNoCommandStartsOnceTheHoldIsSetEvenByARoundThatFoundItUnset(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ran := filepath.Join(h.dir, "ran")
	runID := h.admit(t, shell("touch "+ran, time.Minute))
	gate := &heldGate{refused: make(chan struct{}, 16)}
	counted := func() (func(), error) {
		done, err := gate.Admit()
		if err == nil {
			gate.passed.Add(1)
		}
		return done, err
	}
	st := &holdOnPending{Store: h.store, gate: gate, hit: make(chan struct{})}
	d, sig := h.dispatcherOn(t, st, dispatcherOpts{admit: counted})
	select {
	case <-st.hit:
	case <-time.After(30 * time.Second):
		t.Fatal("no round read the pending attempt after passing the gate")
	}
	select {
	case <-gate.refused:
	case a := <-sig.finished:
		t.Fatalf("attempt %s ran (%s) after the hold was set", a.ID, a.State)
	case <-time.After(30 * time.Second):
		t.Fatal("the round neither passed the gate again nor started the attempt")
	}
	if _, err := os.Stat(ran); !os.IsNotExist(err) {
		t.Errorf("the command ran after the hold was set (stat %s: %v)", ran, err)
	}
	det := h.detail(t, runID)
	if det.Run.State != run.Queued || len(det.Attempts) != 1 || det.Attempts[0].State != run.AttemptClaimed {
		t.Fatalf("run %s, attempts %+v after the hold was set; want queued with its attempt claimed", det.Run.State, det.Attempts)
	}
	gate.set(false)
	d.Wake()
	if a := sig.wait(t, 1)[0]; a.State != run.AttemptSucceeded {
		t.Errorf("attempt %s once released, want succeeded", a.State)
	}
	if _, err := os.Stat(ran); err != nil {
		t.Errorf("the command did not run once the hold was released: %v", err)
	}
}
