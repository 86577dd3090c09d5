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

// maxCached bounds the cache; past it, expired entries are dropped, and if
// none is, the whole cache (it refills from the database).
const maxCached = 4096

// authCache maps a credential's SHA-256 (never the credential) to the
// identity the database gave it, for AuthCacheTTL. Failures are not
// cached: an unknown credential is asked again each time.
type authCache struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]authEntry
}

type authEntry struct {
	id    pgstore.WorkerIdentity
	until time.Time
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

func (c *authCache) put(key [sha256.Size]byte, id pgstore.WorkerIdentity, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCached {
		for k, e := range c.m {
			if !now.Before(e.until) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxCached {
			clear(c.m)
		}
	}
	c.m[key] = authEntry{id: id, until: now.Add(AuthCacheTTL)}
}
