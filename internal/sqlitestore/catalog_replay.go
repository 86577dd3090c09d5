package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/catalog"
	"github.com/qinglong/qinglong/internal/qlerror"
)

// mutationReplay reports whether the mutation id was already applied to
// this task or trigger: with identical content (same revision and digest)
// the replay is accepted and res describes the original write; any drift is
// rejected — a mutation id names one request, so the same content published
// over another expected revision is another request. byMutation selects the
// revision row of (object id, mutation id).
func mutationReplay(ctx context.Context, tx *txn, byMutation, kind, id, name, mutationID string, want int64, contentDigest string, res *catalog.PublishResult) (bool, error) {
	var revision, createdAt int64
	var storedDigest string
	err := tx.QueryRowContext(ctx, byMutation, id, mutationID).Scan(&revision, &storedDigest, &createdAt)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, err
	case revision != want || storedDigest != contentDigest:
		return false, qlerror.New(qlerror.MutationDrift, "mutation id %q was already applied to %s %q as revision %d, with other content or over another revision; use a new mutation id for a new change", mutationID, kind, name, revision)
	}
	*res = catalog.PublishResult{Revision: revision, CreatedAtMs: createdAt, Replayed: true}
	return true, nil
}
