package pgstore

import (
	"sync"

	"github.com/jackc/pgx/v5/pgtype"
)

// handles remembers where each claimed row version lives (its ctid), by
// claim token, from the take to the commit.
//
// Why: the commit then reaches its row with a TID scan, without descending
// the primary-key index, and the lock statement's plan stays a fixed
// TID-scan-then-primary-key-lookups shape whatever the table's size.
//
// A handle is only a hint: the commit re-checks trigger id and the full
// fence on the row it finds, and without a handle (or when the row moved)
// it locates the row by primary key instead.
type handles struct {
	mu sync.Mutex
	m  map[string]handle
}

type handle struct {
	tid         pgtype.TID
	expiresAtMs int64
}

func newHandles() *handles { return &handles{m: make(map[string]handle)} }

// remember records the ticket's row version and forgets every handle
// whose claim expired before nowMs (its ticket can only race now).
func (h *handles) remember(token string, tid pgtype.TID, expiresAtMs, nowMs int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, v := range h.m {
		if v.expiresAtMs < nowMs {
			delete(h.m, k)
		}
	}
	h.m[token] = handle{tid: tid, expiresAtMs: expiresAtMs}
}

func (h *handles) lookup(token string) (pgtype.TID, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.m[token]
	return v.tid, ok
}

func (h *handles) forget(token string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.m, token)
}
