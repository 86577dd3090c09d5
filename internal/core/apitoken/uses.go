package apitoken

import (
	"context"
	"sync"
	"time"
)

// UseEvery bounds how often one token's last use is written: a token in
// steady use costs one write a minute, not one per request.
const UseEvery = time.Minute

// TouchWithin bounds the write of a token's last use. It is informational,
// and a database file another process holds (SQLite) keeps the writer
// busy for its busy timeout; unbounded, the write held the request behind
// every write queued before it, past the server's own time limit, where
// the request itself would have answered in time (504, saying what held
// the file).
const TouchWithin = time.Second

// maxUses bounds the tokens whose last recorded use is remembered; a full
// map is cleared, which only costs a write per token.
const maxUses = 10_000

// Uses records tokens' last use at most once per UseEvery for each token.
// A server shares one between its API and its console, so a token used
// through both is still written at most once a minute.
type Uses struct {
	store   Authenticator
	mu      sync.Mutex
	touched map[string]int64
}

// NewUses records last uses in store.
func NewUses(store Authenticator) *Uses {
	return &Uses{store: store, touched: map[string]int64{}}
}

// Record notes that the token id was used at nowMs, writing it unless it
// was written less than UseEvery ago, within TouchWithin; a failure to
// write is ignored, since the last use is informational and must never
// fail or hold up a request.
func (u *Uses) Record(ctx context.Context, id string, nowMs int64) {
	u.mu.Lock()
	last, ok := u.touched[id]
	due := !ok || nowMs-last >= UseEvery.Milliseconds()
	if due {
		if len(u.touched) >= maxUses {
			clear(u.touched)
		}
		u.touched[id] = nowMs
	}
	u.mu.Unlock()
	if due {
		ctx, cancel := context.WithTimeout(ctx, TouchWithin)
		defer cancel()
		_ = u.store.TokenTouch(ctx, id, nowMs)
	}
}
