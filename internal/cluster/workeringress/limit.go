package workeringress

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Default per-worker rate: enough for a worker at workerproto.MaxCapacity
// renewing every lease and sending log chunks for each of its commands,
// while one worker looping on errors cannot starve the others.
const (
	DefaultRate  = 200 // requests per second, refilled continuously
	DefaultBurst = 400
)

// The failed-authentication limit per remote address, the API's: 10 at
// once, then one a minute. Past it, the address's requests are refused
// with 429 before anything is asked of the database.
const (
	DefaultFailedAuth      = rate.Limit(1.0 / 60)
	DefaultFailedAuthBurst = 10
)

// maxAddresses bounds the per-address limits (a full set forgets the
// addresses it limits least, authlimit.Keyed).
const maxAddresses = 10_000

// maxBuckets bounds the limiter's memory: past it, buckets that have
// refilled completely (idle workers) are dropped; they would start full
// anyway.
const maxBuckets = 4096

// limiter is one token bucket per worker id.
type limiter struct {
	rate  float64
	burst float64
	mu    sync.Mutex
	m     map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(rate float64, burst int) *limiter {
	return &limiter{rate: rate, burst: float64(burst), m: map[string]*bucket{}}
}

// allow takes one token of worker id's bucket. When none is left it
// reports how long until one is.
func (l *limiter) allow(id string, now time.Time) (ok bool, retryAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.m[id]
	if b == nil {
		if len(l.m) >= maxBuckets {
			l.prune(now)
		}
		b = &bucket{tokens: l.burst, last: now}
		l.m[id] = b
	}
	b.tokens = math.Min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}

func (l *limiter) prune(now time.Time) {
	for id, b := range l.m {
		if b.tokens+now.Sub(b.last).Seconds()*l.rate >= l.burst {
			delete(l.m, id)
		}
	}
}
