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

// sessionWakes wakes the pulls and watches of one session at a time: a
// stop asked of one of its attempts concerns no other worker, so it sends
// no other waiter back to the database. A waiter joins before it asks the
// database, as with broadcast, so a wake between its query and its wait
// is never missed.
type sessionWakes struct {
	mu sync.Mutex
	by map[string]*sessionWake
}

// sessionWake is the wake the waiters of one session share.
type sessionWake struct {
	ch      chan struct{}
	waiters int
	fired   bool
}

func newSessionWakes() *sessionWakes { return &sessionWakes{by: map[string]*sessionWake{}} }

// join returns the wake the next stop of session closes.
func (s *sessionWakes) join(session string) *sessionWake {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.by[session]
	if e == nil {
		e = &sessionWake{ch: make(chan struct{})}
		s.by[session] = e
	}
	e.waiters++
	return e
}

// leave drops a waiter that no longer waits; the last one of a session
// that was not woken takes its entry away, so the map holds only the
// sessions waited on.
func (s *sessionWakes) leave(session string, e *sessionWake) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.fired {
		return
	}
	if e.waiters--; e.waiters == 0 {
		delete(s.by, session)
	}
}

// wake sends the waiters of session back to the database.
func (s *sessionWakes) wake(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.by[session]; e != nil {
		s.fire(session, e)
	}
}

// wakeAll sends every session's waiters back to the database.
func (s *sessionWakes) wakeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for session, e := range s.by {
		s.fire(session, e)
	}
}

// fire closes e; s.mu is held.
func (s *sessionWakes) fire(session string, e *sessionWake) {
	e.fired = true
	close(e.ch)
	delete(s.by, session)
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

// Notice is one wake a listener passes on.
type Notice struct {
	// SessionChanged: a session stopped being active (replaced, or its
	// worker revoked or drained); else, without StopAsked, Runs were
	// queued.
	SessionChanged bool
	// StopAsked names the session one of whose attempts a stop was asked
	// of.
	StopAsked string
	// Relisten: the listener (re)started, and the notices sent while none
	// listened are lost, so every pull and watch reads its session and
	// its stops again.
	Relisten bool
}

// ListenFunc listens for the database's runs-queued and stop-asked
// notifications on a connection of its own, calling wake for each, until
// ctx ends or the connection is lost (pgstore's Listen). Once it listens
// on every channel, and before the first notice, it wakes with Relisten.
type ListenFunc func(ctx context.Context, wake func(Notice)) error

// Listen runs listen until ctx ends, restarting it with backoff when its
// connection is lost. Every (re)start wakes the waiting pulls and watches
// once too (Relisten, sent by listen once it is subscribed): notifications
// sent while no listener was up are lost, and a waiter that asks the
// database again misses nothing. Woken before the subscription, a waiter
// could ask the database and wait again while a notice sent in between
// reached no listener, and sleep through it to its wait bound. A listener
// that fails leaves long-polls to their own wait bound, never to a hot
// loop.
func Listen(ctx context.Context, listen ListenFunc, wake func(Notice), log *slog.Logger) {
	delay := listenBackoffFirst
	for ctx.Err() == nil {
		started := time.Now()
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
