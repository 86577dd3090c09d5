package console

import (
	"fmt"
	"testing"
	"time"
)

func frozenThrottle() *throttle {
	at := time.UnixMilli(1_700_000_000_000)
	return newThrottle(func() time.Time { return at })
}

// A stranger's failed sign-ins for a user name slow the stranger's address
// for that name, never the owner signing in from another address; an
// address that fails often enough is throttled for every name and token.
func TestAStrangersFailedSigninsDoNotLockTheOwnerOut(t *testing.T) {
	th := frozenThrottle()
	for range signinPairBurst {
		th.failed("203.0.113.9", "bob")
	}
	if th.allowed("203.0.113.9", "bob") {
		t.Fatalf("the stranger's address may still try bob after %d failures", signinPairBurst)
	}
	if !th.allowed("192.0.2.1", "bob") {
		t.Fatal("bob's owner is throttled at a fresh address by a stranger's failures")
	}
	if !th.allowed("203.0.113.9", "carol") || !th.allowed("203.0.113.9", "") {
		t.Fatal("the stranger's address is throttled for another name or a token before its own limit")
	}
	for i := range signinBurst - signinPairBurst {
		th.failed("203.0.113.9", fmt.Sprintf("name-%d", i))
	}
	if th.allowed("203.0.113.9", "carol") || th.allowed("203.0.113.9", "") {
		t.Fatalf("an address is not throttled after %d failures", signinBurst)
	}
	if f, r := th.fails.Load(), th.refusals.Load(); f != signinBurst || r != 3 {
		t.Fatalf("counted %d failures and %d refusals, want %d and 3", f, r, signinBurst)
	}
}

// Guessing one name from many addresses, one failure each, is held to the
// name's loose ceiling: past it the name is refused from any address,
// while other names stay open.
func TestGuessingOneNameFromManyAddressesHitsTheNamesCeiling(t *testing.T) {
	th := frozenThrottle()
	for i := range signinNameBurst - 1 {
		th.failed(fmt.Sprintf("10.0.%d.%d", i/256, i%256), "bob")
	}
	if !th.allowed("192.0.2.1", "bob") {
		t.Fatal("bob is throttled below the name's ceiling")
	}
	th.failed("10.1.0.0", "bob")
	if th.allowed("192.0.2.1", "bob") {
		t.Fatalf("bob may still be tried after %d failures from as many addresses", signinNameBurst)
	}
	if !th.allowed("192.0.2.1", "carol") {
		t.Fatal("another name is throttled by bob's ceiling")
	}
}
