package loop

import (
	"context"
	"testing"
	"time"
)

// A context outliving its parent is live after the parent ends, until the
// grace passes, and ends then without anyone cancelling it.
func TestAnOutlivingContextEndsOnlyItsGraceAfterItsParent(t *testing.T) {
	t.Parallel()
	parent, cancelParent := context.WithCancel(context.Background())
	const grace = 200 * time.Millisecond
	out, cancel := Outliving(parent, grace)
	defer cancel()
	cancelParent()
	if err := out.Err(); err != nil {
		t.Fatalf("the outliving context ended with its parent: %v", err)
	}
	select {
	case <-out.Done():
	case <-time.After(time.Minute):
		t.Fatal("the outliving context did not end after its grace")
	}
}

// Its own cancel ends it at once, the parent still live.
func TestAnOutlivingContextEndsWhenCancelled(t *testing.T) {
	t.Parallel()
	out, cancel := Outliving(t.Context(), time.Hour)
	cancel()
	if out.Err() == nil {
		t.Fatal("the outliving context is live after its cancel")
	}
}
