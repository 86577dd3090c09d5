package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// depsKeys are the dependencies changes (POST /api/v1/dependencies, its
// install and remove) asked for with an Idempotency-Key that this server
// is making now, by whose key it is (principal.keyOwner) and the key.
// The keys themselves are the store's (Config.DependencyKeys), so a
// client retrying a change whose answer it lost (a timeout, a dropped
// connection, a restart) gets the Run the first made rather than a
// second install; these only let a repeat sent while this server makes
// the first wait for its answer rather than be told to ask again.
type depsKeys struct {
	mu     sync.Mutex
	making map[string]chan struct{}
}

// idempotencyKey is r's Idempotency-Key header, its quotes (a structured
// field's string) taken off, "" when it sends none; a key of another
// shape than a run now's request id is refused as one is.
func idempotencyKey(r *http.Request) (string, error) {
	key := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	if len(key) >= 2 && key[0] == '"' && key[len(key)-1] == '"' {
		key = key[1 : len(key)-1]
	}
	if key == "" {
		return "", nil
	}
	_, err := schedule.RequestIDOf(schedule.RunNowRequest{RequestID: key})
	return key, err
}

// depsOnce runs do for the change of route and body asked for by owner
// with key, or answers the Run the same key's earlier change made: one
// change per key, a second request with it on this server waiting for
// the first's. A key sent before with another route or body is refused
// (RefusalIdempotencyKeyMismatch), and one whose change another server
// is making (or was cut off making less than deps.KeyLease ago) is
// refused RefusalIdempotencyKeyInUse; a change that failed forgets its
// key, so that a retry tries again.
func (a *api) depsOnce(ctx context.Context, owner, key, route string, body depsBody, do func() (string, error)) (string, error) {
	digest, err := depsDigest(route, body)
	if err != nil {
		return "", err
	}
	id := owner + "\x00" + key
	k := &a.depsKeys
	for {
		k.mu.Lock()
		wait, busy := k.making[id]
		if !busy {
			if k.making == nil {
				k.making = map[string]chan struct{}{}
			}
			mine := make(chan struct{})
			k.making[id] = mine
			k.mu.Unlock()
			runID, err := a.depsClaimed(ctx, deps.KeyAsk{Actor: owner, Key: key, Digest: digest, Kept: deps.KeyLifetime, Lease: deps.KeyLease}, do)
			k.mu.Lock()
			delete(k.making, id)
			k.mu.Unlock()
			close(mine)
			return runID, err
		}
		k.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// depsDigest is the SHA-256 of a change asked for: its route and its
// decoded body, so that the same change sent with other spacing or field
// order is the same.
func depsDigest(route string, body depsBody) ([]byte, error) {
	asked, err := json.Marshal(struct {
		Route string
		Body  depsBody
	}{route, body})
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(asked)
	return sum[:], nil
}

// depsClaimed claims ask's key in the store and makes the change when
// the claim is this request's, recording its Run (or forgetting the key
// of a change that failed); otherwise it answers what the key holds.
func (a *api) depsClaimed(ctx context.Context, ask deps.KeyAsk, do func() (string, error)) (string, error) {
	c, err := a.DependencyKeys.DependencyKeyClaim(ctx, ask)
	if err != nil {
		return "", err
	}
	switch {
	case !bytes.Equal(c.Digest, ask.Digest):
		return "", qlerror.New(qlerror.Invalid, "the Idempotency-Key %q was sent before with another dependencies change (another route, kind, packages or name): "+
			"send a new key for a new change, or the first change again to be answered its Run", clip(ask.Key)).
			Because(RefusalIdempotencyKeyMismatch, "idempotencyKey", clip(ask.Key))
	case !c.Mine && c.RunID != "":
		return c.RunID, nil
	case !c.Mine:
		return "", qlerror.New(qlerror.Conflict, "the dependencies change of Idempotency-Key %q is being made by another server on this database, or was cut off "+
			"less than a minute ago: ask again in a minute with the same key and body, to be answered its Run", clip(ask.Key)).
			Because(RefusalIdempotencyKeyInUse, "idempotencyKey", clip(ask.Key))
	}
	runID, err := do()
	// The change has been made or refused: what it left is recorded even
	// when its client has gone, so that the client's retry finds it.
	kept := context.WithoutCancel(ctx)
	if err != nil {
		if ferr := a.DependencyKeys.DependencyKeyForget(kept, ask.Actor, ask.Key); ferr != nil {
			return "", ferr
		}
		return "", err
	}
	if err := a.DependencyKeys.DependencyKeyDone(kept, ask.Actor, ask.Key, runID); err != nil {
		return "", err
	}
	return runID, nil
}
