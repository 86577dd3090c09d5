package ids

import (
	"testing"

	"github.com/google/uuid"
)

// The ids minted one after the other, alone or a page at a time, sort in
// the order they were minted, as strings and as UUIDs, even when many fall
// in the same 256 ns of the clock; each is a canonical UUIDv7 of the RFC
// 9562 variant, as uuid.NewV7 mints them.
func TestIdsSortInTheOrderTheyWereMinted(t *testing.T) {
	var minted []string
	for range 200 {
		minted = append(minted, New())
		page := make([]string, 64)
		Fill(page)
		minted = append(minted, page...)
	}
	seen := make(map[string]bool, len(minted))
	for i, id := range minted {
		u, err := uuid.Parse(id)
		if err != nil || u.String() != id || u.Version() != 7 || u.Variant() != uuid.RFC4122 {
			t.Fatalf("id %d %q: parsed %v (version %d, variant %v), want a canonical UUIDv7", i, id, err, u.Version(), u.Variant())
		}
		if seen[id] {
			t.Fatalf("id %d %q was minted twice", i, id)
		}
		seen[id] = true
		if i > 0 && !(minted[i-1] < id) {
			t.Fatalf("id %d %q does not sort after the id minted before it, %q", i, id, minted[i-1])
		}
	}
}

// BenchmarkMint compares minting the 512 ids of a page of 256 admissions
// with uuid.NewV7 and its String, as ids were minted, and with Fill:
// -benchmem shows Fill's two allocations a page whatever its size (the
// ids' random bits and their text), where uuid.NewV7 and its String cost
// two an id. A benchmark, not a test: the race detector the suite runs
// under allocates on its own.
//
//	go test ./internal/core/ids -run '^$' -bench 'BenchmarkMint' -benchmem
func BenchmarkMint(b *testing.B) {
	page := make([]string, 512)
	b.Run("uuid.NewV7", func(b *testing.B) {
		for b.Loop() {
			for i := range page {
				page[i] = uuid.Must(uuid.NewV7()).String()
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(page)), "ns/id")
	})
	b.Run("Fill", func(b *testing.B) {
		for b.Loop() {
			Fill(page)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(page)), "ns/id")
	})
}
