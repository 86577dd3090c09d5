package account

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"strings"
	"sync"
)

// setupBytes is the setup code's entropy: 160 bits, beyond guessing at
// any rate (and so at the console's throttled one), which base32 spells
// in 32 characters: eight even groups of four.
const setupBytes = 20

// setupEncoding spells a setup code in capitals and the digits 2–7, none
// of which is easily misread for another (no 0, 1, 8 or 9).
var setupEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// SetupCode is the one-time code that lets the first owner be created in
// the console while no account exists. It keeps only the code's hash, so
// nothing but the one log line that shows it to the operator holds the
// code, and it is spent by its first right use.
type SetupCode struct {
	mu     sync.Mutex
	hash   []byte // nil while spent
	closed bool
	// atClose runs once, at the first Close (AtClose).
	atClose func()
}

// NewSetupCode draws a code and returns it with its holder; the caller
// shows the code once (NewSetupCode keeps only its hash).
func NewSetupCode() (*SetupCode, string) {
	b := make([]byte, setupBytes)
	_, _ = rand.Read(b) // crypto/rand never fails on supported platforms
	code := groupCode(setupEncoding.EncodeToString(b))
	return &SetupCode{hash: setupHash(code)}, code
}

// groupCode splits a code into groups of four, to read aloud and type.
func groupCode(s string) string {
	var parts []string
	for len(s) > 4 {
		parts = append(parts, s[:4])
		s = s[4:]
	}
	return strings.Join(append(parts, s), "-")
}

// normalCode is a typed code as drawn: capitals, without the spaces and
// dashes a person may type or leave out between the groups.
func normalCode(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '-' || r == ' ' || r == '\t':
			return -1
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		}
		return r
	}, s)
}

func setupHash(code string) []byte {
	sum := sha256.Sum256([]byte(normalCode(code)))
	return sum[:]
}

// Open reports whether a code may still be spent.
func (c *SetupCode) Open() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hash != nil && !c.closed
}

// Spend reports whether code is the setup code and, when it is, spends
// it: of two spends of the right code at once, exactly one is true.
func (c *SetupCode) Spend(code string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.hash == nil || subtle.ConstantTimeCompare(setupHash(code), c.hash) != 1 {
		return false
	}
	c.hash = nil
	return true
}

// Unspend gives a spent code back, for a spend whose account could not be
// stored for a reason of the store's (not because one exists): the
// operator may try again with the same code. It does nothing once Close
// ran.
func (c *SetupCode) Unspend(code string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed && c.hash == nil {
		c.hash = setupHash(code)
	}
}

// Close ends the code for good, spent or not: an account exists.
func (c *SetupCode) Close() {
	c.mu.Lock()
	first := !c.closed
	c.hash, c.closed = nil, true
	f := c.atClose
	c.mu.Unlock()
	if first && f != nil {
		f()
	}
}

// AtClose makes f run once the code is closed for good, as soon as it is:
// whatever still holds the code (its file) goes with it.
func (c *SetupCode) AtClose(f func()) {
	c.mu.Lock()
	closed := c.closed
	c.atClose = f
	c.mu.Unlock()
	if closed {
		f()
	}
}
