package workeringress

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// broadcast wakes every waiter at once: a waiter takes the current
// channel before it asks the database, so a wake that lands between its
// query and its wait is never missed.
type broadcast struct {
	mu sync.Mutex
	ch chan struct{}
}

func newBroadcast() *broadcast { return &broadcast{ch: make(chan struct{})} }

// c is the channel the next wake closes.
func (b *broadcast) c() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ch
}

func (b *broadcast) wake() {
	b.mu.Lock()
	defer b.mu.Unlock()
	close(b.ch)
	b.ch = make(chan struct{})
}

// Diagnostic codes of the notification listener.
const (
	CodeListenerLost = "ingress.listener_lost"
)

// Backoff between restarts of a lost listener: doubling from
// listenBackoffFirst to listenBackoffMax, back to the first after a
// listener that lived listenHealthy.
const (
	listenBackoffFirst = 100 * time.Millisecond
	listenBackoffMax   = 5 * time.Second
	listenHealthy      = 30 * time.Second
)

// ListenFunc listens for the database's runs-queued notifications on a
// connection of its own, calling wake for each (sessionChanged for one
// that says a session stopped being active), until ctx ends or the
// connection is lost (pgstore's Listen).
type ListenFunc func(ctx context.Context, wake func(sessionChanged bool)) error

// Listen runs listen until ctx ends, restarting it with backoff when its
// connection is lost. Every (re)start wakes the waiting pulls and watches
// once too: notifications sent while no listener was up are lost, and a
// waiter that asks the database again misses nothing. A listener that
// fails leaves long-polls to their own wait bound, never to a hot loop.
func Listen(ctx context.Context, listen ListenFunc, wake func(sessionChanged bool), log *slog.Logger) {
	delay := listenBackoffFirst
	for ctx.Err() == nil {
		started := time.Now()
		wake(true)
		err := listen(ctx, wake)
		if ctx.Err() != nil {
			return
		}
		if time.Since(started) >= listenHealthy {
			delay = listenBackoffFirst
		}
		attrs := []any{slog.String("code", CodeListenerLost), slog.Int64("retry_in_ms", delay.Milliseconds())}
		if err != nil {
			attrs = append(attrs, slog.String("error", errorText(err)))
		}
		log.Warn("notice listener lost its connection; restarting it", attrs...)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		delay = min(delay*2, listenBackoffMax)
	}
}
