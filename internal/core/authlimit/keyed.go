package authlimit

import (
	"cmp"
	"slices"
	"time"

	"golang.org/x/time/rate"
)

// Keyed is one limit kept per key (an address, a user name, a token),
// remembering a bounded number of keys. A key it forgot starts again with
// a full bucket, so what it forgets when full is chosen to forgive least:
// first the keys whose bucket has refilled (they hold nothing), then
// those with the most tries left, never one with a check in progress.
// Forgetting every key at once would let someone who fails from that
// many addresses, or on that many names, reset every limit, the ones
// throttling them included. A Keyed has no lock of its own: the Tries its
// keys are passed to guards it, so each Keyed is used with one Tries.
type Keyed struct {
	limit rate.Limit
	burst int
	max   int
	m     map[string]*rate.Limiter
}

// NewKeyed keeps a bucket of burst tries refilled at limit for each of up
// to maxKeys keys.
func NewKeyed(limit rate.Limit, burst, maxKeys int) *Keyed {
	return &Keyed{limit: limit, burst: burst, max: maxKeys, m: map[string]*rate.Limiter{}}
}

// Key names one key's limit of k.
func (k *Keyed) Key(name string) Key {
	return Key{set: k, name: name}
}

// Key is one key's limit in a Keyed set.
type Key struct {
	set  *Keyed
	name string
}

// forgetShare is the share of a full set forgotten at once, so that a
// flood of new keys costs one sort per tenth of the set, not per key.
const forgetShare = 10

// limiter returns k's limiter, made when missing (forgetting some keys
// first when the set is full); the Tries' lock is held, so a limiter a
// check holds a try of is never forgotten.
func (t *Tries) limiter(now time.Time, k Key) *rate.Limiter {
	if l, ok := k.set.m[k.name]; ok {
		return l
	}
	if len(k.set.m) >= k.set.max {
		t.forget(now, k.set)
	}
	l := rate.NewLimiter(k.set.limit, k.set.burst)
	k.set.m[k.name] = l
	return l
}

// forget drops a tenth of the set's keys, those with the most tries left
// and no check in progress; the Tries' lock is held.
func (t *Tries) forget(now time.Time, k *Keyed) {
	type left struct {
		key    string
		tokens float64
	}
	idle := make([]left, 0, len(k.m))
	for key, l := range k.m {
		if t.running[l] == 0 {
			idle = append(idle, left{key, l.TokensAt(now)})
		}
	}
	slices.SortFunc(idle, func(a, b left) int { return cmp.Compare(b.tokens, a.tokens) })
	for _, e := range idle[:min(len(idle), max(1, k.max/forgetShare))] {
		delete(k.m, e.key)
	}
}
