package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// maxDepsKeys bounds the Idempotency-Keys of dependencies changes a
// server remembers; the oldest is forgotten first.
const maxDepsKeys = 1024

// depsKeys are the dependencies changes (POST /api/v1/dependencies, its
// install and remove) asked for with an Idempotency-Key, by who asked and
// the key: a client retrying a change whose answer it lost (a timeout, a
// dropped connection) gets the Run the first made rather than a second
// install. They are kept by the server process, the latest maxDepsKeys
// of them: a restart forgets them.
type depsKeys struct {
	mu    sync.Mutex
	seen  map[string]*depsKeyed
	order []string
}

// depsKeyed is one key's change: the digest of what was asked (the
// route and the decoded body), and, once done (closed), its Run.
type depsKeyed struct {
	digest [sha256.Size]byte
	done   chan struct{}
	runID  string
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

// once runs do for the change of route and body asked for by actor with
// key, or answers the Run the same key's earlier change made: one change
// per key, a second request with it waiting for the first's. A key sent
// before with another route or body is refused
// (RefusalIdempotencyKeyMismatch); a change that failed forgets its key,
// so that a retry tries again.
func (k *depsKeys) once(ctx context.Context, actor, key, route string, body depsBody, do func() (string, error)) (string, error) {
	asked, err := json.Marshal(struct {
		Route string
		Body  depsBody
	}{route, body})
	if err != nil {
		return "", err
	}
	digest := sha256.Sum256(asked)
	id := actor + "\x00" + key
	k.mu.Lock()
	if k.seen == nil {
		k.seen = map[string]*depsKeyed{}
	}
	if had, ok := k.seen[id]; ok {
		k.mu.Unlock()
		if had.digest != digest {
			return "", qlerror.New(qlerror.Invalid, "the Idempotency-Key %q was sent before with another dependencies change (another route, kind, packages or name): "+
				"send a new key for a new change, or the first change again to be answered its Run", clip(key)).
				Because(RefusalIdempotencyKeyMismatch, "idempotencyKey", clip(key))
		}
		select {
		case <-had.done:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		if had.runID == "" {
			return k.once(ctx, actor, key, route, body, do)
		}
		return had.runID, nil
	}
	mine := &depsKeyed{digest: digest, done: make(chan struct{})}
	k.seen[id] = mine
	k.order = append(k.order, id)
	if len(k.order) > maxDepsKeys {
		delete(k.seen, k.order[0])
		k.order = k.order[1:]
	}
	k.mu.Unlock()
	runID, err := do()
	k.mu.Lock()
	mine.runID = runID
	if err != nil && k.seen[id] == mine {
		delete(k.seen, id)
		for i, o := range k.order {
			if o == id {
				k.order = append(k.order[:i], k.order[i+1:]...)
				break
			}
		}
	}
	k.mu.Unlock()
	close(mine.done)
	return runID, err
}
