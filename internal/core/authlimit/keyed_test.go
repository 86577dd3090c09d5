package authlimit

import (
	"fmt"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// fail spends every try of key's limit, as failures would.
func fail(tries *Tries, now time.Time, key Key, times int) {
	for range times {
		tries.Spend(now, key)
	}
}

// failFromMany fails times from each of n other addresses.
func failFromMany(tries *Tries, now time.Time, set *Keyed, n, times int) {
	for i := range n {
		fail(tries, now, set.Key(fmt.Sprintf("2001:db8::%x", i)), times)
	}
}

// A full set forgets the keys with the most tries left, never the ones it
// throttles: failing once from many new addresses does not give a
// throttled address its tries back.
func TestAFullSetKeepsTheKeysItThrottles(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	var tries Tries
	const burst, bound = 5, 100
	set := NewKeyed(rate.Every(time.Hour), burst, bound)
	throttled := set.Key("192.0.2.1")
	fail(&tries, now, throttled, burst)
	failFromMany(&tries, now, set, 10*bound, 1)
	if tries.Open(now, throttled) {
		t.Fatalf("the throttled address has a try again after failures from %d other addresses", 10*bound)
	}
	if n := len(set.m); n > bound {
		t.Fatalf("the set holds %d keys, over its bound of %d", n, bound)
	}
}

// The keys a full set forgets first are those whose bucket has refilled:
// they hold nothing, so forgetting them forgives no one.
func TestAFullSetForgetsRefilledKeysFirst(t *testing.T) {
	start := time.Unix(1_000_000, 0)
	var tries Tries
	const burst, bound = 3, 20
	set := NewKeyed(rate.Every(time.Minute), burst, bound)
	for i := range bound / 2 {
		fail(&tries, start, set.Key(fmt.Sprintf("old-%d", i)), burst)
	}
	later := start.Add(time.Duration(burst) * time.Minute)
	for i := range bound / 2 {
		fail(&tries, later, set.Key(fmt.Sprintf("new-%d", i)), 1)
	}
	tries.Spend(later, set.Key("one-more"))
	forgotten := 0
	for i := range bound / 2 {
		if _, ok := set.m[fmt.Sprintf("new-%d", i)]; !ok {
			t.Errorf("new-%d, one failure a moment ago, was forgotten while refilled keys were kept", i)
		}
		if _, ok := set.m[fmt.Sprintf("old-%d", i)]; !ok {
			forgotten++
		}
	}
	if forgotten != bound/forgetShare {
		t.Fatalf("a full set forgot %d refilled keys to make room, want %d (a tenth of the set)", forgotten, bound/forgetShare)
	}
}

// A key with a check in progress is never forgotten, even when every
// other key is throttled harder: the check's failure must land on the
// limiter the next check finds.
func TestAFullSetNeverForgetsAKeyWithACheckInProgress(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	var tries Tries
	const burst, bound = 5, 10
	set := NewKeyed(rate.Every(time.Hour), burst, bound)
	checking := set.Key("192.0.2.1")
	held, ok := tries.Reserve(now, checking)
	if !ok {
		t.Fatal("a fresh address was refused")
	}
	failFromMany(&tries, now, set, 5*bound, burst)
	held.Settle(now, true)
	for range burst - 1 {
		tries.Spend(now, checking)
	}
	if tries.Open(now, checking) {
		t.Fatal("the address's failure during the flood was lost: its limiter was forgotten while its check ran")
	}
}
