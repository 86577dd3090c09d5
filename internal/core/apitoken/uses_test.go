package apitoken

import (
	"context"
	"testing"
	"time"
)

// stuckTouches is a store whose writes of a last use wait until their
// context ends, as a write queued behind a held database file does.
type stuckTouches struct{ waited chan time.Duration }

func (stuckTouches) TokenByDigest(context.Context, []byte) (Token, error) { return Token{}, nil }

func (s stuckTouches) TokenTouch(ctx context.Context, _ string, _ int64) error {
	start := time.Now()
	<-ctx.Done()
	s.waited <- time.Since(start)
	return ctx.Err()
}

// Recording a use never holds a request longer than TouchWithin, however
// long the write would wait, even for a request without a time limit of
// its own (the authentication before a route's limit applies).
func TestRecordingAUseHoldsARequestAtMostTouchWithin(t *testing.T) {
	store := stuckTouches{waited: make(chan time.Duration, 1)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		NewUses(store).Record(context.Background(), "token-id", 1)
	}()
	select {
	case <-done:
	case <-time.After(10 * TouchWithin):
		t.Fatalf("Record still waits after %s for a write that does not finish", 10*TouchWithin)
	}
	if waited := <-store.waited; waited < TouchWithin/2 {
		t.Fatalf("the write was given %s, want about %s", waited, TouchWithin)
	}
}
