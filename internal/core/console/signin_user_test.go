package console

import "testing"

// Failed sign-ins are counted per address and per user name: ten failures
// for one name throttle that name from any address, and leave other names
// and other addresses alone.
func TestSigninThrottleCountsPerAddressAndPerUserName(t *testing.T) {
	th := newThrottle()
	for i := range signinBurst {
		th.failed("10.0.0."+string(rune('a'+i)), "bob")
	}
	if th.allowed("192.0.2.1", "bob") {
		t.Fatal("bob may still be tried after ten failures from ten addresses")
	}
	if !th.allowed("192.0.2.1", "carol") || !th.allowed("192.0.2.1", "") {
		t.Fatal("another name, or a token, is throttled from a fresh address")
	}
	for range signinBurst {
		th.failed("198.51.100.7", "")
	}
	if th.allowed("198.51.100.7", "carol") {
		t.Fatal("an address is not throttled after ten failures")
	}
	if f, r := th.fails.Load(), th.refusals.Load(); f != 2*signinBurst || r != 2 {
		t.Fatalf("counted %d failures and %d refusals, want %d and 2", f, r, 2*signinBurst)
	}
}
