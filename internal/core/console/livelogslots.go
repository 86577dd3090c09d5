package console

import "sync"

// maxLiveLogs bounds the live logs one session follows at once on one
// server: each polls the database for as long as its Run goes on, so a
// page opened again and again (or a script holding a session) must not
// multiply that load without end. A person follows a few running Runs at
// a time; 8 leaves room for that and for a browser's reconnects.
const maxLiveLogs = 8

// liveLogSlots counts the live logs each session follows, by session id:
// apart from the session table, whose entries may be evicted and made
// again while a stream goes on.
type liveLogSlots struct {
	mu   sync.Mutex
	held map[string]int
	max  int
}

func newLiveLogSlots(max int) *liveLogSlots {
	return &liveLogSlots{held: map[string]int{}, max: max}
}

// take reports whether the session of id may follow one more live log,
// and if so counts it until give.
func (s *liveLogSlots) take(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[id] >= s.max {
		return false
	}
	s.held[id]++
	return true
}

// give frees a slot take counted: the stream ended.
func (s *liveLogSlots) give(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[id]--; s.held[id] <= 0 {
		delete(s.held, id)
	}
}

// count is how many live logs the session of id follows.
func (s *liveLogSlots) count(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held[id]
}
