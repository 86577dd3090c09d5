package storetest

import (
	"bytes"
	"sync"
	"testing"

	"github.com/qinglong/qinglong/internal/core/deps"
)

// RunDependencyKeys runs the contract of the Idempotency-Keys of
// dependencies changes (a server's API) against an adapter.
func RunDependencyKeys(t *testing.T, newFixture Factory) {
	t.Run("ADependencyChangesKeyIsClaimedOncePerCallerUntilItsDayEnds", func(t *testing.T) {
		t.Parallel()
		testDependencyKeyClaimedOnce(t, newFixture(t))
	})
}

// claimKey claims actor's key for digest with the usual windows but the
// lease, which the caller gives.
func claimKey(t *testing.T, keys deps.Keys, actor, key string, digest []byte, ask func(*deps.KeyAsk)) deps.KeyClaim {
	t.Helper()
	a := deps.KeyAsk{Actor: actor, Key: key, Digest: digest, Kept: deps.KeyLifetime, Lease: deps.KeyLease}
	if ask != nil {
		ask(&a)
	}
	c, err := keys.DependencyKeyClaim(t.Context(), a)
	if err != nil {
		t.Fatalf("claim %s's key %s: %v", actor, key, err)
	}
	return c
}

func requireKeyClaim(t *testing.T, got deps.KeyClaim, mine bool, digest []byte, runID, what string) {
	t.Helper()
	if got.Mine != mine || !bytes.Equal(got.Digest, digest) || got.RunID != runID {
		t.Fatalf("%s: %+v; want mine %v, digest %x, Run %q", what, got, mine, digest, runID)
	}
}

// testDependencyKeyClaimedOnce: a key is claimed by one request of its
// caller at a time, even of many at once; a claim asked again answers
// the first's digest and, once done, its Run, also to a refused forget;
// another caller's same key is theirs; a forgotten claim is claimed
// again; a claim never done is claimed again after its lease, by the
// same change only; and a key past its lifetime starts afresh.
func testDependencyKeyClaimedOnce(t *testing.T, f Fixture) {
	keys := f.DependencyKeys
	ctx := t.Context()
	first, other := randomDigest(t), randomDigest(t)

	claims := make([]deps.KeyClaim, 8)
	var wg sync.WaitGroup
	for i := range claims {
		wg.Go(func() {
			c, err := keys.DependencyKeyClaim(ctx, deps.KeyAsk{Actor: "token:ada", Key: "add-1", Digest: first, Kept: deps.KeyLifetime, Lease: deps.KeyLease})
			if err != nil {
				t.Errorf("claim %d at once: %v", i, err)
			}
			claims[i] = c
		})
	}
	wg.Wait()
	mine := 0
	for _, c := range claims {
		if c.Mine {
			mine++
		} else {
			requireKeyClaim(t, c, false, first, "", "a claim at once with one being made")
		}
	}
	if mine != 1 {
		t.Fatalf("%d of %d claims at once with one key were the claimer's; want exactly one: %+v", mine, len(claims), claims)
	}
	requireKeyClaim(t, claimKey(t, keys, "token:ada", "add-1", other, nil), false, first, "", "the key with another change while the first is made")
	requireKeyClaim(t, claimKey(t, keys, "token:bea", "add-1", other, nil), true, other, "", "another caller's same key")

	if err := keys.DependencyKeyDone(ctx, "token:ada", "add-1", "run-1"); err != nil {
		t.Fatal(err)
	}
	requireKeyClaim(t, claimKey(t, keys, "token:ada", "add-1", first, nil), false, first, "run-1", "the change asked again once done")
	requireKeyClaim(t, claimKey(t, keys, "token:ada", "add-1", first, func(a *deps.KeyAsk) { a.Lease = 0 }), false, first, "run-1",
		"the change asked again once done, its lease over")
	if err := keys.DependencyKeyForget(ctx, "token:ada", "add-1"); err != nil {
		t.Fatal(err)
	}
	requireKeyClaim(t, claimKey(t, keys, "token:ada", "add-1", first, nil), false, first, "run-1", "a done key asked to be forgotten")

	if err := keys.DependencyKeyForget(ctx, "token:bea", "add-1"); err != nil {
		t.Fatal(err)
	}
	requireKeyClaim(t, claimKey(t, keys, "token:bea", "add-1", first, nil), true, first, "", "a forgotten claim asked again")

	requireKeyClaim(t, claimKey(t, keys, "token:bea", "add-1", other, func(a *deps.KeyAsk) { a.Lease = 0 }), false, first, "",
		"another change of a claim never done, its lease over")
	requireKeyClaim(t, claimKey(t, keys, "token:bea", "add-1", first, func(a *deps.KeyAsk) { a.Lease = 0 }), true, first, "",
		"the same change of a claim never done, its lease over")

	requireKeyClaim(t, claimKey(t, keys, "token:ada", "add-1", other, func(a *deps.KeyAsk) { a.Kept = 0 }), true, other, "",
		"a key past its lifetime with another change")
}
