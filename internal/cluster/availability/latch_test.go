package availability

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

func TestLatchTripsOnlyOnUnavailableErrors(t *testing.T) {
	t.Parallel()
	l := New()
	for _, err := range []error{
		nil,
		errors.New("boom"),
		qlerror.New(qlerror.Conflict, "lost a serialization race"),
		qlerror.Wrap(qlerror.Unavailable, context.Canceled, "interrupted"),
	} {
		if l.Observe(err) {
			t.Fatalf("latch tripped on %v", err)
		}
	}
	if !l.Available() {
		t.Fatal("latch unavailable without an unavailable error")
	}
	wrapped := qlerror.Wrap(qlerror.Unavailable, fmt.Errorf("claim: %w", schedule.ErrUnavailable), "claiming")
	select {
	case <-l.Lost():
		t.Fatal("Lost closed without an unavailable error")
	default:
	}
	if !l.Observe(wrapped) {
		t.Fatal("first unavailable error did not report the trip")
	}
	if l.Available() {
		t.Fatal("latch still available after an unavailable error")
	}
}

func TestLatchNeverFlapsBack(t *testing.T) {
	t.Parallel()
	l := New()
	var wg sync.WaitGroup
	trips := make(chan bool, 64)
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			trips <- l.Observe(schedule.ErrUnavailable)
		}()
	}
	wg.Wait()
	close(trips)
	n := 0
	for tripped := range trips {
		if tripped {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d observers reported the trip, want exactly 1", n)
	}
	select {
	case <-l.Lost():
	default:
		t.Fatal("Lost not closed after the trip")
	}
	l.Observe(nil)
	l.Observe(errors.New("later success path"))
	if l.Available() {
		t.Fatal("latch became available again")
	}
}
