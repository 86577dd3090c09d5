package sqlitestore

import (
	"context"
	"encoding/json"

	"github.com/qinglong/qinglong/internal/core/catalog"
)

// replays returns, by object id, the revisions the (object id, mutation
// id) pairs already wrote; byMutations selects them from a JSON array of
// pairs.
func replays(ctx context.Context, tx *txn, byMutations string, pairs [][2]string) (map[string]catalog.Stored, error) {
	js, err := json.Marshal(pairs)
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, byMutations, string(js))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]catalog.Stored{}
	for rows.Next() {
		var id string
		var s catalog.Stored
		if err := rows.Scan(&id, &s.Revision, &s.Digest, &s.CreatedAtMs); err != nil {
			return nil, err
		}
		out[id] = s
	}
	return out, rows.Err()
}

// idsJSON is a JSON array of ids, for the by-ids statements.
func idsJSON(ids []string) (string, error) {
	b, err := json.Marshal(ids)
	return string(b), err
}
