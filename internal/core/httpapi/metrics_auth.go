package httpapi

import (
	"context"
	"sync"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// metricsTokenWait bounds the token lookup of a scrape of /metrics: a
// replica whose database is down may wait on a dead pool far longer than
// Prometheus waits for the scrape (10 s by default), which then reads the
// replica as down. Past it the scrape is served as the store could not
// answer (knownTokens). With the monitoring reads' own bound (3 s each,
// the state's and the storage's) the scrape still answers inside 10 s.
const metricsTokenWait = 2 * time.Second

// maxKnownTokens bounds knownTokens: a server's scrapers use a handful of
// tokens, and only a token that authenticated is kept.
const maxKnownTokens = 256

// knownTokens are the tokens whose last lookup found them valid, by
// digest, for one use only: a request for a route marked lastKnown (a
// scrape of /metrics) while the store cannot answer the lookup (a
// replica's database down, or its pool not answering within
// metricsTokenWait) is served to a token the store last found valid, so Prometheus reads the server as up and not ready, with the
// metrics that need no database, instead of as down. Nothing else is
// served so. A revocation needs the database too: a token revoked through
// another replica during this one's outage still reads its metrics until
// the database answers again; its expiry is still checked.
type knownTokens struct {
	mu     sync.Mutex
	tokens map[string]apitoken.Token
}

// remember keeps t, found valid by the lookup of digest.
func (k *knownTokens) remember(digest []byte, t apitoken.Token) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.tokens == nil {
		k.tokens = map[string]apitoken.Token{}
	}
	if _, ok := k.tokens[string(digest)]; !ok && len(k.tokens) >= maxKnownTokens {
		for d := range k.tokens {
			delete(k.tokens, d)
			break
		}
	}
	k.tokens[string(digest)] = t
}

// forget drops the token of digest, which the store no longer finds
// valid (unknown, revoked, expired).
func (k *knownTokens) forget(digest []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.tokens, string(digest))
}

// known is the token of digest as its last lookup found it.
func (k *knownTokens) known(digest []byte) (apitoken.Token, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	t, ok := k.tokens[string(digest)]
	return t, ok
}

// lookupContext bounds the token lookup of a route marked lastKnown by
// metricsTokenWait; other routes wait as long as their request does.
func lookupContext(ctx context.Context, unchecked storeDown) (context.Context, context.CancelFunc) {
	if unchecked != lastKnown {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, metricsTokenWait)
}
