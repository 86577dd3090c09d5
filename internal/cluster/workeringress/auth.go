package workeringress

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
)

// AuthCacheTTL is how long an authenticated credential is trusted without
// asking the database again, and so the longest a revoked credential may
// still be served. It keeps a busy worker from costing one extra query per
// request; revocation must take effect within 5 s.
const AuthCacheTTL = 2 * time.Second

// VouchFor is how long a credential this replica authenticated passes the
// per-address throttle of failed authentications: a worker sharing its
// address (a NAT, a host) with one whose credential is wrong is not
// refused with it. The credential is still asked of the database every
// AuthCacheTTL, so a revoked one is refused as before, and its first
// failure ends its pass.
const VouchFor = time.Hour

// maxCached bounds the cache; past it, entries whose pass ended are
// dropped, and if none is, the whole cache (it refills from the database).
const maxCached = 4096

// authCache maps a credential's SHA-256 (never the credential) to the
// identity the database gave it, for AuthCacheTTL, and remembers it
// passes the address throttle for VouchFor. Failures are not cached: an
// unknown credential is asked again each time (the address throttle
// bounds how often).
type authCache struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]authEntry
}

type authEntry struct {
	id              pgstore.WorkerIdentity
	until, vouching time.Time
}

func newAuthCache() *authCache { return &authCache{m: map[[sha256.Size]byte]authEntry{}} }

func (c *authCache) get(key [sha256.Size]byte, now time.Time) (pgstore.WorkerIdentity, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || !now.Before(e.until) {
		return pgstore.WorkerIdentity{}, false
	}
	return e.id, true
}

// vouched reports a credential authenticated here within VouchFor.
func (c *authCache) vouched(key [sha256.Size]byte, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	return ok && now.Before(e.vouching)
}

func (c *authCache) put(key [sha256.Size]byte, id pgstore.WorkerIdentity, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCached {
		for k, e := range c.m {
			if !now.Before(e.vouching) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxCached {
			clear(c.m)
		}
	}
	c.m[key] = authEntry{id: id, until: now.Add(AuthCacheTTL), vouching: now.Add(VouchFor)}
}

// forget drops a credential the database refused.
func (c *authCache) forget(key [sha256.Size]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, key)
}
