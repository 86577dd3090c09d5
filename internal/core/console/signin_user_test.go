package console

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
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

// Strangers who fill a name's ceiling do not keep its owner out of an
// address the owner signed in from: there only the address's and the
// pair's own limits count, so a fresh address stays refused and the
// owner's address is still held to five failures at that name.
func TestTheNamesCeilingSparesAnAddressTheOwnerSignedInFrom(t *testing.T) {
	th := frozenThrottle()
	th.signedIn("192.0.2.1", "bob")
	for i := range signinNameBurst {
		th.failed(fmt.Sprintf("10.0.%d.%d", i/256, i%256), "bob")
	}
	if th.allowed("198.51.100.7", "bob") {
		t.Fatal("bob may be tried from a fresh address past the name's ceiling")
	}
	if !th.allowed("192.0.2.1", "bob") {
		t.Fatal("bob's owner is kept out of the address bob signed in from by strangers filling the name's ceiling")
	}
	for range signinPairBurst {
		th.failed("192.0.2.1", "bob")
	}
	if th.allowed("192.0.2.1", "bob") {
		t.Fatalf("the known address may still try bob after %d failures of its own", signinPairBurst)
	}
}

// A sign-in that succeeds is what makes its address known for the name;
// one that fails is not.
func TestOnlyASuccessfulSigninMakesItsAddressKnown(t *testing.T) {
	c := New(Config{Users: storeWithBob(t)})
	c.verify = func(_, password string, found bool) bool { return found && password == "the right one" }
	if w := wrongSignin(c, "bob", "198.51.100.7"); w.Code != http.StatusUnauthorized {
		t.Fatalf("a wrong password: %d, want 401", w.Code)
	}
	form := url.Values{"csrf": {"a-browsers-value"}, "user": {"bob"}, "password": {"the right one"}}
	r := httptest.NewRequest(http.MethodPost, "/signin", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.RemoteAddr = "192.0.2.1:4000"
	r.AddCookie(&http.Cookie{Name: c.formCookieName(signinCookie), Value: "a-browsers-value"})
	w := httptest.NewRecorder()
	c.ServeHTTP(w, r)
	if w.Code != http.StatusSeeOther {
		t.Fatalf("the right password: %d, want 303:\n%s", w.Code, w.Body)
	}
	if !c.throttle.isKnown("bob\x00192.0.2.1") || c.throttle.isKnown("bob\x00198.51.100.7") {
		t.Fatal("known pairs: want only the address bob signed in from")
	}
}

// An address counts as the owner's for knownFor after its last sign-in;
// past that it is under the name's ceiling again.
func TestAKnownAddressFallsBackUnderTheCeilingAfterKnownFor(t *testing.T) {
	at := time.UnixMilli(1_700_000_000_000)
	th := newThrottle(func() time.Time { return at })
	th.signedIn("192.0.2.1", "bob")
	at = at.Add(knownFor)
	for i := range signinNameBurst {
		th.failed(fmt.Sprintf("10.0.%d.%d", i/256, i%256), "bob")
	}
	if th.allowed("192.0.2.1", "bob") {
		t.Fatalf("an address that last signed in %v ago is still spared the name's ceiling", knownFor)
	}
}

// The known pairs are bounded: a full set forgets the pair that signed in
// longest ago, and keeps the others.
func TestTheKnownPairsAreBoundedAndForgetTheOldestFirst(t *testing.T) {
	at := time.UnixMilli(1_700_000_000_000)
	th := newThrottle(func() time.Time { return at })
	for i := range maxThrottled {
		th.signedIn(fmt.Sprintf("2001:db8:%x::1", i), "bob")
		at = at.Add(time.Millisecond)
	}
	th.signedIn("192.0.2.1", "bob")
	if n := len(th.known); n != maxThrottled {
		t.Fatalf("%d known pairs, want the bound %d", n, maxThrottled)
	}
	if th.isKnown("bob\x002001:db8::/64") {
		t.Fatal("the pair that signed in longest ago was kept over the bound")
	}
	if !th.isKnown("bob\x002001:db8:1::/64") || !th.isKnown("bob\x00192.0.2.1") {
		t.Fatal("a full set forgot a pair other than the oldest")
	}
}

// Failing from more addresses, on more names, than the throttle
// remembers does not reset it: a name held at its ceiling and an address
// out of tries stay refused once maxThrottled others have failed once.
func TestAFloodOfAddressesAndNamesDoesNotResetTheThrottle(t *testing.T) {
	th := frozenThrottle()
	for i := range signinNameBurst {
		th.failed(fmt.Sprintf("10.0.%d.%d", i/256, i%256), "bob")
	}
	for range signinBurst {
		th.failed("203.0.113.9", "")
	}
	for i := range maxThrottled + 1 {
		th.failed(fmt.Sprintf("2001:db8:%x::1", i), fmt.Sprintf("name-%d", i))
	}
	if th.allowed("192.0.2.1", "bob") {
		t.Fatalf("bob may be tried again after %d other names failed once each", maxThrottled+1)
	}
	if th.allowed("203.0.113.9", "") {
		t.Fatalf("the address out of tries may try again after %d other addresses failed once each", maxThrottled+1)
	}
}

// Sign-ins that all passed the throttle while a limit had one try left
// still run one password check between them: each takes its try once it
// holds a check slot, before its name is looked up, so the others get
// the throttled answer, known and unknown names alike.
func TestSigninsAtOnceCannotPassALimitWithOneTryLeft(t *testing.T) {
	const k = 4
	users := storeWithBob(t)
	c := New(Config{Users: users})
	// A frozen clock refills nothing; each reading is reported, so the
	// test knows when every sign-in has passed the first check.
	at := time.UnixMilli(1_700_000_000_000)
	readings := make(chan struct{}, 64)
	c.throttle = newThrottle(func() time.Time { readings <- struct{}{}; return at })
	const addr = "203.0.113.9"
	for i := range signinBurst - 1 {
		c.throttle.failed(addr, fmt.Sprintf("name-%d", i))
	}
	for range signinBurst - 1 {
		<-readings
	}
	// The test holds every check slot until all k have passed the first
	// check, which none of them can fail: nothing is reserved yet.
	c.slots = newCheckSlots(2, time.Minute)
	for range 2 {
		c.slots.slots <- struct{}{}
	}
	var checks atomic.Int32
	entered, release := make(chan struct{}, k), make(chan struct{})
	free := sync.OnceFunc(func() { close(release) })
	c.verify = func(string, string, bool) bool {
		n := checks.Add(1)
		entered <- struct{}{}
		if n == 1 {
			<-release
		}
		return false
	}
	answers := make(chan *httptest.ResponseRecorder, k)
	var wg sync.WaitGroup
	defer func() { free(); wg.Wait() }()
	for i := range k {
		name := "bob"
		if i%2 == 1 {
			name = "nobody"
		}
		wg.Go(func() { answers <- wrongSignin(c, name, addr) })
	}
	for range k {
		<-readings
	}
	for range 2 {
		c.slots.release()
	}
	// The first to take a try is held in its check; the others answer
	// meanwhile.
	<-entered
	for range k - 1 {
		w := <-answers
		if w.Code != http.StatusTooManyRequests || !strings.Contains(w.Body.String(), "Too many failed sign-ins") {
			t.Errorf("a sign-in beyond the last try: %d, want 429 with the throttled message:\n%s", w.Code, w.Body)
		}
	}
	if n, l := checks.Load(), users.lookups.Load(); n != 1 || l != 1 {
		t.Errorf("%d passwords were checked and %d names looked up, want 1 and 1", n, l)
	}
	if failures, throttled, _ := c.AuthStats(); failures != signinBurst-1 || throttled != k-1 {
		t.Errorf("counted %d failures and %d throttled, want %d and %d", failures, throttled, signinBurst-1, k-1)
	}
	free()
	if w := <-answers; w.Code != http.StatusUnauthorized {
		t.Errorf("the sign-in that took the last try: %d, want 401", w.Code)
	}
	if c.throttle.allowed(addr, "") {
		t.Error("the address may still try after its last try failed")
	}
}
