package workeringress

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
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
//
// A stop of a session nobody waits for here is kept (unheard) for the
// session's next pull or watch on this replica, which then reads its stops
// at once: a worker is between two requests for moments at a time (a pull
// answered, its grants started, the next one not yet sent), and a notice
// landing then would otherwise wait for the attempt's next renewal, a
// third of the run lease later. Every replica hears the notice and keeps
// it; only the one the worker asks next uses it, the others' copies age
// out.
type sessionWakes struct {
	mu      sync.Mutex
	by      map[string]*sessionWake
	unheard map[string]time.Time
	now     func() time.Time
}

// unheardStopsMax bounds the stops kept for sessions not waiting: past it
// the oldest goes first (its worker hears that stop at its renewal, as
// before). Each is a session id and a time: 4,096 of them are a few
// hundred KiB at most.
const unheardStopsMax = 4096

// unheardStopTTL is how long a stop is kept for a session that does not
// ask: a worker sends its next request within moments, or a watch at the
// latest once a pull's wait has passed (a draining one its draining
// watch); one that has not asked by then is gone, or drains without that
// watch (a worker older than it), and its renewal (or the session's end)
// takes over.
const unheardStopTTL = 2 * workerproto.MaxPullWait

// sessionWake is the wake the waiters of one session share.
type sessionWake struct {
	ch      chan struct{}
	waiters int
	fired   bool
}

func newSessionWakes() *sessionWakes {
	return &sessionWakes{by: map[string]*sessionWake{}, unheard: map[string]time.Time{}, now: time.Now}
}

// join returns the wake the next stop of session closes, already closed
// when a stop of that session came while nothing waited for it.
func (s *sessionWakes) join(session string) *sessionWake {
	s.mu.Lock()
	defer s.mu.Unlock()
	if at, ok := s.unheard[session]; ok {
		delete(s.unheard, session)
		if s.now().Sub(at) < unheardStopTTL {
			fired := &sessionWake{ch: make(chan struct{}), waiters: 1, fired: true}
			close(fired.ch)
			return fired
		}
	}
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

// wake sends the waiters of session back to the database, or keeps the
// stop for its next request when none waits.
func (s *sessionWakes) wake(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.by[session]; e != nil {
		s.fire(session, e)
		return
	}
	s.keepUnheard(session)
}

// keepUnheard records a stop of session that found no waiter; s.mu is
// held. Aged stops go first, then, if the set is still full, the oldest.
func (s *sessionWakes) keepUnheard(session string) {
	now := s.now()
	if _, ok := s.unheard[session]; !ok && len(s.unheard) >= unheardStopsMax {
		oldest, oldestAt := "", now
		for id, at := range s.unheard {
			if now.Sub(at) >= unheardStopTTL {
				delete(s.unheard, id)
				continue
			}
			if !at.After(oldestAt) {
				oldest, oldestAt = id, at
			}
		}
		if len(s.unheard) >= unheardStopsMax {
			delete(s.unheard, oldest)
		}
	}
	s.unheard[session] = now
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
