package sqlitestore

import (
	"context"
	"encoding/json"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// stored is a revision a mutation id already wrote.
type stored struct {
	revision  int64
	digest    string
	createdAt int64
}

// replays returns, by object id, the revisions the (object id, mutation
// id) pairs already wrote; byMutations selects them from a JSON array of
// pairs.
func replays(ctx context.Context, tx *txn, byMutations string, pairs [][2]string) (map[string]stored, error) {
	js, err := json.Marshal(pairs)
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, byMutations, string(js))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]stored{}
	for rows.Next() {
		var id string
		var s stored
		if err := rows.Scan(&id, &s.revision, &s.digest, &s.createdAt); err != nil {
			return nil, err
		}
		out[id] = s
	}
	return out, rows.Err()
}

// replayed checks a publish against what its mutation id already wrote:
// with identical content (same revision and digest) the replay is accepted
// and answers with the original write; any drift is rejected — a mutation
// id names one request, so the same content published over another
// expected revision is another request.
func replayed(s stored, kind, name, mutationID string, want int64, contentDigest string) (catalog.PublishResult, error) {
	if s.revision != want || s.digest != contentDigest {
		return catalog.PublishResult{}, qlerror.New(qlerror.MutationDrift, "mutation id %q was already applied to %s %q as revision %d, with other content or over another revision; use a new mutation id for a new change", mutationID, kind, name, s.revision)
	}
	return catalog.PublishResult{Revision: s.revision, CreatedAtMs: s.createdAt, Replayed: true}, nil
}

// idsJSON is a JSON array of ids, for the by-ids statements.
func idsJSON(ids []string) (string, error) {
	b, err := json.Marshal(ids)
	return string(b), err
}
