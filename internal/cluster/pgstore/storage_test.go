package pgstore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// The runtime role, with no privilege beyond `ql db roles`' grants, reads
// the database's size.
func TestStorageConformance(t *testing.T) {
	t.Parallel()
	storetest.RunStorage(t, newFixture)
}
