package deps

import (
	"context"
	"time"
)

// KeyLifetime is how long a dependencies change's Idempotency-Key is
// kept from its claim, on the store's clock: a client's retries come
// within it, and a key sent again after it starts a change of its own.
const KeyLifetime = 24 * time.Hour

// KeyLease is how long a key claimed by a change that never said how it
// ended (its server stopped mid-change) holds its retries off: after it,
// the same change asked again claims the key and is made. The API's
// refusal meanwhile says "a minute".
const KeyLease = time.Minute

// KeyExpiredBatch bounds the kept keys past their lifetime that one new
// claim deletes.
const KeyExpiredBatch = 100

// KeyAsk is a dependencies change asked for with an Idempotency-Key: who
// asked (another caller's same key is another key), the key, the
// SHA-256 of what was asked (the route and the body), and the windows
// its store judges kept keys by.
type KeyAsk struct {
	Actor  string
	Key    string
	Digest []byte
	// Kept is the lifetime of a key from its claim (KeyLifetime).
	Kept time.Duration
	// Lease is how long a claim not yet done holds (KeyLease).
	Lease time.Duration
}

// KeyClaim is a store's answer to a KeyAsk: either the asker claimed the
// key (Mine: it makes the change, then says KeyDone or KeyForget), or
// the key was claimed before with Digest, its change's Run RunID, ""
// while that change is still being made.
type KeyClaim struct {
	Mine   bool
	Digest []byte
	RunID  string
}

// Keys keeps the Idempotency-Keys of dependencies changes in the
// database, so that a change asked again after a restart, or of another
// server on the database, is made once.
type Keys interface {
	// DependencyKeyClaim claims ask's key for ask's actor, deleting up
	// to KeyExpiredBatch keys past their lifetime in the same
	// transaction; a key whose claim is older than the lease, not done
	// and with the same digest, is claimed again.
	DependencyKeyClaim(ctx context.Context, ask KeyAsk) (KeyClaim, error)
	// DependencyKeyDone records the Run of the change that claimed
	// actor's key.
	DependencyKeyDone(ctx context.Context, actor, key, runID string) error
	// DependencyKeyForget deletes actor's key while its change is not
	// done: a change that was refused, so that a retry tries again.
	DependencyKeyForget(ctx context.Context, actor, key string) error
}
