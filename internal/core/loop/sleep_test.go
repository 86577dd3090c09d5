package loop

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSleepEndsWhenItsContextEnds: a sleep lasts its duration, or ends
// with the context's error as soon as the context is done.
func TestSleepEndsWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Fatalf("a sleep of 1 ms: %v, want nil", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	done := make(chan error, 1)
	go func() { done <- Sleep(ctx, time.Hour) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("a sleep whose context was cancelled: %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a sleep of an hour outlived its cancelled context by 10 s")
	}
}
