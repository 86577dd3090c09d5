package pgstore

import "testing"

// PoolStat reads the runtime pool itself: its size, and a connection
// acquired counts in use until it is released, then idle.
func TestPoolStatReadsTheRuntimePoolsSizeAndConnections(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	c, err := s.runtime.pool.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	size, inUse, _ := s.runtime.PoolStat()
	c.Release()
	_, inUseAfter, idleAfter := s.runtime.PoolStat()
	if size != DefaultRuntimeConns || inUse != 1 || inUseAfter != 0 || idleAfter < 1 {
		t.Errorf("size %d, in use %d while one was held, then %d in use and %d idle; want %d, 1, 0, at least 1", size, inUse, inUseAfter, idleAfter, DefaultRuntimeConns)
	}
}
