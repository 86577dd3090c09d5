package pgstore

import (
	"sync"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qinglong/qinglong/internal/core/schedule"
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

// remember records the row versions of one claim's tickets (tids[i] is
// tickets[i]'s) and forgets every handle whose claim expired before the
// claim's database time (its ticket can only race now). One sweep per
// claim, not per ticket: the map holds the pages still in flight, and a
// sweep per ticket scanned it once for each of a page's 256 rows, under
// the lock every commit's lookup waits on.
func (h *handles) remember(tickets []schedule.Ticket, tids []pgtype.TID) {
	if len(tickets) == 0 {
		return
	}
	nowMs := tickets[0].Lease.AcquiredAtMs
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, v := range h.m {
		if v.expiresAtMs < nowMs {
			delete(h.m, k)
		}
	}
	for i, tk := range tickets {
		h.m[tk.Lease.Token] = handle{tid: tids[i], expiresAtMs: tk.Lease.ExpiresAtMs}
	}
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
