// Package ids allocates and validates QingLong identifiers.
//
// Every entity id is a UUIDv7: time-ordered, so B-tree inserts stay local,
// and random enough that two replicas never collide without coordinating.
package ids

import (
	"fmt"

	"github.com/google/uuid"
)

// New returns a fresh UUIDv7 in canonical lower-case form.
func New() string {
	var one [1]string
	Fill(one[:])
	return one[0]
}

// Validate reports whether s is a canonical UUID (any version accepted on
// read, so ids minted by older builds stay readable).
func Validate(field, s string) error {
	u, err := uuid.Parse(s)
	if err != nil || u.String() != s {
		return fmt.Errorf("%s: %q is not a canonical lower-case UUID", field, s)
	}
	return nil
}

// FloorAt is the least UUIDv7 minted at epoch millisecond ms: every id New
// makes at ms or later sorts at or after it, every earlier one before it,
// as strings and as UUIDs alike. ms must be within 0 … 2^48-1.
func FloorAt(ms int64) string {
	return fmt.Sprintf("%08x-%04x-7000-8000-000000000000", ms>>16, ms&0xffff)
}

// TimeOf is the epoch millisecond a UUIDv7 was minted at.
func TimeOf(id string) (int64, error) {
	u, err := uuid.Parse(id)
	if err != nil || u.Version() != 7 {
		return 0, fmt.Errorf("%q is not a UUIDv7", id)
	}
	// The first 48 bits are the millisecond (RFC 9562); the bits after
	// them may hold a sub-millisecond fraction, which FloorAt ignores too.
	return int64(u[0])<<40 | int64(u[1])<<32 | int64(u[2])<<24 | int64(u[3])<<16 | int64(u[4])<<8 | int64(u[5]), nil
}
