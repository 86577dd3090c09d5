package authlimit

import (
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// A held try counts against its limit until it ends: with one try left,
// a second check cannot start while the first runs; a check that
// succeeds gives its try back, one that fails spends it.
func TestAHeldTryCountsUntilItEndsAndOnlyAFailureSpendsIt(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	var tries Tries
	addr := NewKeyed(rate.Every(time.Hour), 1, 10).Key("192.0.2.1")
	first, ok := tries.Reserve(now, addr)
	if !ok {
		t.Fatal("the only try of a fresh limit was refused")
	}
	if _, ok := tries.Reserve(now, addr); ok || tries.Open(now, addr) {
		t.Fatal("a second check started while the first held the only try")
	}
	first.Settle(now, false)
	second, ok := tries.Reserve(now, addr)
	if !ok {
		t.Fatal("a succeeded check did not give its try back")
	}
	second.Settle(now, true)
	if tries.Open(now, addr) {
		t.Fatal("a failed check did not spend its try")
	}
}

// A check counting against several limits starts only when each has a
// try left, and holds none of them when refused.
func TestACheckNeedsATryOfEveryLimitAndTakesNoneWhenRefused(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	var tries Tries
	addr := NewKeyed(rate.Every(time.Hour), 2, 10).Key("192.0.2.1")
	name := NewKeyed(rate.Every(time.Hour), 1, 10).Key("bob")
	tries.Spend(now, name)
	if _, ok := tries.Reserve(now, addr, name); ok {
		t.Fatal("a check started though the name's limit had no try left")
	}
	for i := range 2 {
		held, ok := tries.Reserve(now, addr)
		if !ok {
			t.Fatalf("check %d from the address alone was refused: the refused check held a try", i)
		}
		defer held.Settle(now, false)
	}
}

// A plain rate limit spends one try a call and refuses once none is left.
func TestAllowSpendsATryAndRefusesWhenNoneIsLeft(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	var tries Tries
	tok := NewKeyed(rate.Every(time.Hour), 2, 10).Key("token-1")
	for i := range 2 {
		if !tries.Allow(now, tok) {
			t.Fatalf("request %d within the burst was refused", i)
		}
	}
	if tries.Allow(now, tok) {
		t.Fatal("a request past the burst was allowed")
	}
}
