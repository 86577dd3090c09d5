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
	id, err := uuid.NewV7()
	if err != nil {
		// NewV7 only fails when the system random source fails; a scheduler
		// that cannot draw randomness must not invent identities.
		panic(fmt.Sprintf("ids: random source failed: %v", err))
	}
	return id.String()
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
