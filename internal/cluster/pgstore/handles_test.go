package pgstore

import (
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

func claimedAt(acquiredMs, expiresMs int64, tokens ...string) ([]schedule.Ticket, []pgtype.TID) {
	tickets := make([]schedule.Ticket, len(tokens))
	tids := make([]pgtype.TID, len(tokens))
	for i, tok := range tokens {
		tickets[i].Lease = &schedule.Lease{Token: tok, AcquiredAtMs: acquiredMs, ExpiresAtMs: expiresMs}
		tids[i] = pgtype.TID{BlockNumber: uint32(i), OffsetNumber: 1, Valid: true}
	}
	return tickets, tids
}

// A claim's handles are kept until its commit forgets them or its claim
// expires: the next claim after the expiry drops them, and never a
// handle whose claim is still live.
func TestAClaimsHandlesLiveUntilForgottenOrExpired(t *testing.T) {
	h := newHandles()
	h.remember(claimedAt(1_000, 31_000, "a1", "a2"))
	h.remember(claimedAt(2_000, 32_000, "b1", "b2"))
	if tid, ok := h.lookup("a2"); !ok || tid.BlockNumber != 1 {
		t.Fatalf("a live claim's handle: %v, %v; want block 1", tid, ok)
	}
	h.forget("b1")
	if _, ok := h.lookup("b1"); ok {
		t.Fatal("a forgotten handle is still found")
	}
	h.remember(claimedAt(31_500, 61_500, "c1"))
	for _, tok := range []string{"a1", "a2"} {
		if _, ok := h.lookup(tok); ok {
			t.Fatalf("handle %s outlived its claim's expiry", tok)
		}
	}
	for _, tok := range []string{"b2", "c1"} {
		if _, ok := h.lookup(tok); !ok {
			t.Fatalf("handle %s was dropped while its claim is live", tok)
		}
	}
}
