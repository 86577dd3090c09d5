package console

import (
	"container/list"
	"encoding/hex"
	"sync"
)

// maxSessions bounds the in-memory session table: past it, signing in
// ends the session used least recently, one for each new one. With the
// sessions stored (sessionstore.go) the table only caches them, and an
// entry evicted loses no more than its flashes: its session goes on.
const maxSessions = 10_000

// maxSessionsPerPrincipal bounds the sessions of one token or one user:
// past it, signing in ends that principal's oldest session (in the store
// too: websession.Store.SessionCreate). A person
// signs in from a few browsers and devices, and a token may be pasted by
// a small team sharing it; 20 covers both with room to spare, while a
// flood of sign-ins with one credential only ever replaces its own
// sessions and cannot crowd out anyone else's.
const maxSessionsPerPrincipal = 20

// sessionTable holds the live sessions by id, each in two lists: all of
// them by last use (the global bound evicts the front) and its principal's
// by sign-in (the per-principal bound evicts the front). Every operation
// is O(1), so no sign-in scans the table under the lock.
type sessionTable struct {
	mu     sync.Mutex
	byID   map[string]*session
	lru    *list.List // of *session, least recently used first
	owners map[string]*list.List
	max    int
	perMax int
}

func newSessionTable(max, perMax int) *sessionTable {
	return &sessionTable{byID: map[string]*session{}, lru: list.New(), owners: map[string]*list.List{}, max: max, perMax: perMax}
}

// principal keys a session's owner: a token by its digest, a user by its
// id (the prefixes keep the two kinds apart).
func (s *session) principal() string {
	if s.userID != "" {
		return "user:" + s.userID
	}
	return "token:" + hex.EncodeToString(s.digest)
}

// add records s, first ending the principal's oldest session when it is
// at its bound, then the least recently used one when the table is full.
func (t *sessionTable) add(s *session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := s.principal()
	s.owner = key
	own := t.owners[key]
	if own == nil {
		own = list.New()
		t.owners[key] = own
	}
	if own.Len() >= t.perMax {
		t.removeLocked(own.Front().Value.(*session))
	}
	if len(t.byID) >= t.max {
		t.removeLocked(t.lru.Front().Value.(*session))
	}
	// The principal's list may have been emptied and dropped above.
	if t.owners[key] == nil {
		t.owners[key] = own
	}
	s.used = t.lru.PushBack(s)
	s.owned = own.PushBack(s)
	t.byID[s.id] = s
}

// get returns the session of id, marking it used at nowMs, nil when there
// is none or it has expired by nowMs; idle when it went unused for idleMs
// (then it is removed, as an expired one).
func (t *sessionTable) get(id string, nowMs, idleMs int64) (s *session, idle bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.byID[id]
	if !ok {
		return nil, false
	}
	if s.expiresMs <= nowMs {
		t.removeLocked(s)
		return nil, false
	}
	if nowMs-s.seenMs >= idleMs {
		t.removeLocked(s)
		return nil, true
	}
	s.seenMs = nowMs
	t.lru.MoveToBack(s.used)
	return s, false
}

// held returns the entry of a session the store has found live, marking
// it used: the store judges its expiry on its own clock, which this
// process's may be off from.
func (t *sessionTable) held(id string) (*session, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.byID[id]
	if ok {
		t.lru.MoveToBack(s.used)
	}
	return s, ok
}

// remove ends the session of id, if it is still held.
func (t *sessionTable) remove(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s, ok := t.byID[id]; ok {
		t.removeLocked(s)
	}
}

func (t *sessionTable) removeLocked(s *session) {
	delete(t.byID, s.id)
	t.lru.Remove(s.used)
	if own := t.owners[s.owner]; own != nil {
		own.Remove(s.owned)
		if own.Len() == 0 {
			delete(t.owners, s.owner)
		}
	}
}

// len is the number of sessions held.
func (t *sessionTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID)
}
