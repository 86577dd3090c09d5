package ids

import (
	"crypto/rand"
	"strings"
	"sync"
	"time"
)

// The ids are minted as github.com/google/uuid's NewV7 mints them (RFC
// 9562, method 3): 48 bits of epoch milliseconds, the version, 12 bits of
// the sub-millisecond time in units of 256 ns, the variant and 62 random
// bits; an id minted in the same 256 ns as the one before it, or while the
// clock reads earlier, takes the one after the last instead, so the ids a
// process mints sort in the order they were minted. Minting here rather
// than there lets a page mint all its ids at once: the random bits in one
// read, the text in one string, where NewV7 and its String cost every id
// two allocations (BENCHMARKS.md, "The claim's scan, and the lock's claim
// columns"). Nothing in the process mints UUIDv7s any other way, so this
// one sequence is the process's, as NewV7's was.
var (
	mintMu sync.Mutex
	// lastMint is the last id's time as milliseconds<<12 | sequence.
	lastMint int64
)

// nextTime is the time part of the next id: its millisecond and its
// 12-bit sequence.
func nextTime() (ms, seq int64) {
	nano := time.Now().UnixNano()
	ms = nano / int64(time.Millisecond)
	seq = (nano - ms*int64(time.Millisecond)) >> 8
	now := ms<<12 + seq
	if now <= lastMint {
		now = lastMint + 1
		ms, seq = now>>12, now&0xfff
	}
	lastMint = now
	return ms, seq
}

// idLen is the length of an id's canonical text.
const idLen = 36

// Fill sets every element of dst to a fresh UUIDv7 in canonical lower-case
// form, minted in the order of dst: the ids of a page cost one random read
// and their text one string, of which each id is a slice.
func Fill(dst []string) {
	if len(dst) == 0 {
		return
	}
	// The 8 random bytes of each id (rand_b and its variant; the time
	// part is the clock's). A page's are read at once; one id's stay on
	// the stack.
	var small [8]byte
	random := small[:]
	if len(dst) > 1 {
		random = make([]byte, 8*len(dst))
	}
	// crypto/rand never fails: it aborts the process instead (Go 1.24).
	_, _ = rand.Read(random)
	var text strings.Builder
	text.Grow(idLen * len(dst))
	mintMu.Lock()
	for i := range dst {
		ms, seq := nextTime()
		var u [16]byte
		// Each byte keeps the low 8 bits of its shift: the time,
		// big-endian, then the version and the sequence.
		u[0], u[1], u[2], u[3], u[4], u[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms) //nolint:gosec // G115: truncation wanted
		u[6], u[7] = 0x70|(0x0f&byte(seq>>8)), byte(seq)                                                                   //nolint:gosec // G115: truncation wanted
		copy(u[8:], random[8*i:8*i+8])
		u[8] = u[8]&0x3f | 0x80
		var t [idLen]byte
		encode(&t, u)
		text.Write(t[:])
	}
	mintMu.Unlock()
	all := text.String()
	for i := range dst {
		dst[i] = all[idLen*i : idLen*(i+1)]
	}
}

// encode writes u's canonical text into dst.
func encode(dst *[idLen]byte, u [16]byte) {
	const hex = "0123456789abcdef"
	j := 0
	for i, b := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst[j] = '-'
			j++
		}
		dst[j], dst[j+1] = hex[b>>4], hex[b&0xf]
		j += 2
	}
}
