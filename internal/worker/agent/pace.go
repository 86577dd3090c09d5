package agent

import (
	"sync"
	"time"
)

// pacer is how many commands a worker takes at once while the replicas
// answer its lease-bound requests late: fewer than its capacity.
//
// Why: a replica that answers a start or a renewal late is short of CPU or
// of database time, usually because it and its database serve more work
// than they can. Taking more commands makes it worse in two ways: each
// start and renewal is one more request for them, and a request not
// answered within its share (half of the lease left, see sendBeside) is
// sent again to the next replica, which then does the same work a second
// time, while the unacknowledged start parks its Run for a whole lease. Under such an
// overload every worker pulling to its capacity turns a slowdown into lost
// leases in bulk. So the worker halves its share when an answer comes back
// late and adds one back for each answer in time (additive increase,
// multiplicative decrease), never below one command, so it always makes
// progress, and never above its capacity.
//
// The share is kept as slots: the pacer holds the slots above its share
// (taken as commands end, never by stopping one), so the pull, which asks
// for free slots only, and the watch, which waits while no slot is free,
// need no other rule.
type pacer struct {
	capacity int
	// free gives one held slot back (a receive from the worker's slots).
	free func()

	mu sync.Mutex
	// limit is the share: how many commands the worker takes at once.
	limit int
	// held is how many slots the pacer holds (at most capacity − limit).
	held int
	// cutAt is when the share was last halved.
	cutAt time.Time
}

// lateShare is the share of its lease after which an answer to a start or
// a renewal is late: a sixth, half of the time between two renewals (a
// third of the lease), so a worker slows down well before its requests
// are sent again (at half of what is left of the lease).
const lateShare = 6

func newPacer(capacity int, free func()) *pacer {
	return &pacer{capacity: capacity, free: free, limit: capacity}
}

// answered records a start or a renewal answered took after it was first
// sent, under a lease of lease; unanswered is one that got no answer at
// all (every replica unreachable or too slow). It reports the share when it
// changed from or back to the whole capacity (cut or restored), so the
// caller can say so once per episode.
func (p *pacer) answered(took, lease time.Duration, unanswered bool, now time.Time) (limit int, cut, restored bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if unanswered || took > lease/lateShare {
		// Every running command renews once per third of the lease, so
		// all the late answers of one such interval tell of one
		// congestion: the share is halved once per interval, not once
		// per answer.
		if p.limit > 1 && now.Sub(p.cutAt) >= lease/3 {
			cut = p.limit == p.capacity
			p.limit = max(1, p.limit/2)
			p.cutAt = now
		}
		return p.limit, cut, false
	}
	if p.limit < p.capacity {
		p.limit++
		restored = p.limit == p.capacity
		if p.held > p.capacity-p.limit {
			p.held--
			p.free()
		}
	}
	return p.limit, false, restored
}

// withhold takes, of free slots the pull just reserved, those above the
// share, and returns how many are left for the pull.
func (p *pacer) withhold(free int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := min(free, max(0, p.capacity-p.limit-p.held))
	p.held += k
	return free - k
}

// holding is how many slots the pacer holds.
func (p *pacer) holding() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}
