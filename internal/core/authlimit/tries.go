// Package authlimit holds the failed-authentication limits (token
// buckets, one per address, name or pair, in bounded Keyed sets) and the
// tries held against them while checks run. A check in progress holds a
// try of each limit it counts against until it ends, like a failure, so
// checks sent at once cannot pass a limit that had one try left; a check
// that succeeds gives its tries back.
package authlimit

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Tries guards the Keyed sets its keys name and counts the tries held
// against each limiter. One lock covers both, so finding a key's limiter
// and taking a try of it is one step: a limiter cannot be forgotten
// between the two, which would lose the failure spent on it. The zero
// value is ready to use.
type Tries struct {
	mu      sync.Mutex
	running map[*rate.Limiter]int
}

// limiters returns the limiters of keys, made when missing; t.mu is held.
func (t *Tries) limiters(now time.Time, keys []Key) []*rate.Limiter {
	ls := make([]*rate.Limiter, len(keys))
	for i, k := range keys {
		ls[i] = t.limiter(now, k)
	}
	return ls
}

// open reports whether each of ls has a try left besides those held;
// t.mu is held.
func (t *Tries) open(now time.Time, ls []*rate.Limiter) bool {
	for _, l := range ls {
		if l.TokensAt(now)-float64(t.running[l]) < 1 {
			return false
		}
	}
	return true
}

// Open reports whether a check counting against keys may run now.
func (t *Tries) Open(now time.Time, keys ...Key) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.open(now, t.limiters(now, keys))
}

// Reserve takes a try of each of keys for a check about to run, or
// reports false, taking nothing, when one of them has none left.
func (t *Tries) Reserve(now time.Time, keys ...Key) (Try, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ls := t.limiters(now, keys)
	if !t.open(now, ls) {
		return Try{}, false
	}
	if t.running == nil {
		t.running = map[*rate.Limiter]int{}
	}
	for _, l := range ls {
		t.running[l]++
	}
	return Try{t: t, ls: ls}, true
}

// Spend records a failure against each of keys without a held try (one
// found without a check, such as a malformed request).
func (t *Tries) Spend(now time.Time, keys ...Key) {
	t.mu.Lock()
	defer t.mu.Unlock()
	spend(now, t.limiters(now, keys))
}

// Allow spends one of key's tries, reporting false when none was left: a
// plain rate limit, such as a token's requests a second.
func (t *Tries) Allow(now time.Time, key Key) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.limiter(now, key).AllowN(now, 1)
}

func spend(now time.Time, ls []*rate.Limiter) {
	for _, l := range ls {
		l.AllowN(now, 1)
	}
}

// Try is a check's held try; Settle ends it once.
type Try struct {
	t  *Tries
	ls []*rate.Limiter
}

// Settle ends the check, spending its tries as a failure when failed and
// giving them back otherwise.
func (r Try) Settle(now time.Time, failed bool) {
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	for _, l := range r.ls {
		if r.t.running[l]--; r.t.running[l] == 0 {
			delete(r.t.running, l)
		}
	}
	if failed {
		spend(now, r.ls)
	}
}

// Failures count one surface's (the API's, the console's, the worker
// ingress's) failed authentications by reason since its server started,
// for metrics.
type Failures struct {
	// Malformed: no credential, or one not of the expected shape.
	Malformed uint64
	// Unknown: a credential or a user and password nobody holds.
	Unknown uint64
	// Expired and Revoked: an API token past its expiry or revoked, or a
	// revoked worker credential (the console counts every failed sign-in
	// as Unknown).
	Expired, Revoked uint64
	// Throttled: requests refused with 429 because their address (or the
	// console user name) failed too often.
	Throttled uint64
}
