package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/deps"
)

var _ deps.Keys = (*Runtime)(nil)

// DependencyKeyClaim claims ask's key on the database's clock, deleting
// up to deps.KeyExpiredBatch keys past their lifetime first; the claim
// and the read of a key claimed before are one transaction, so of two
// requests with one key, on any servers, exactly one claims it.
func (s *Runtime) DependencyKeyClaim(ctx context.Context, ask deps.KeyAsk) (deps.KeyClaim, error) {
	var c deps.KeyClaim
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		c = deps.KeyClaim{}
		if _, err := tx.Exec(ctx, sqlDependencyKeyDeleteExpired, ask.Kept.Milliseconds(), deps.KeyExpiredBatch); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, sqlDependencyKeyClaim, ask.Actor, ask.Key, ask.Digest, ask.Lease.Milliseconds())
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			c = deps.KeyClaim{Mine: true, Digest: ask.Digest}
			return nil
		}
		return tx.QueryRow(ctx, sqlDependencyKeyOf, ask.Actor, ask.Key).Scan(&c.Digest, &c.RunID)
	})
	return c, mapErr(err, "claiming a dependencies change's key")
}

// DependencyKeyDone records the Run of the change that claimed actor's
// key.
func (s *Runtime) DependencyKeyDone(ctx context.Context, actor, key, runID string) error {
	_, err := s.pool.Exec(ctx, sqlDependencyKeyDone, actor, key, runID)
	return mapErr(err, "recording a dependencies change's key")
}

// DependencyKeyForget deletes actor's key while its change is not done.
func (s *Runtime) DependencyKeyForget(ctx context.Context, actor, key string) error {
	_, err := s.pool.Exec(ctx, sqlDependencyKeyForget, actor, key)
	return mapErr(err, "forgetting a dependencies change's key")
}
