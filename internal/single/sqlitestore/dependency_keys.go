package sqlitestore

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/deps"
)

var _ deps.Keys = (*Store)(nil)

// DependencyKeyClaim claims ask's key on the store's clock, deleting up
// to deps.KeyExpiredBatch keys past their lifetime first; the claim and
// the read of a key claimed before are one transaction, so of two
// requests with one key exactly one claims it.
func (s *Store) DependencyKeyClaim(ctx context.Context, ask deps.KeyAsk) (deps.KeyClaim, error) {
	var c deps.KeyClaim
	err := s.write(ctx, "claim a dependencies change's key", durable, func(tx *txn) error {
		c = deps.KeyClaim{}
		now := s.nowMs()
		if _, err := tx.ExecContext(ctx, qDependencyKeyDeleteExpired, now-ask.Kept.Milliseconds(), deps.KeyExpiredBatch); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, qDependencyKeyClaim, ask.Actor, ask.Key, ask.Digest, now, now-ask.Lease.Milliseconds())
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n == 1 {
			c = deps.KeyClaim{Mine: true, Digest: ask.Digest}
			return nil
		}
		return tx.QueryRowContext(ctx, qDependencyKeyOf, ask.Actor, ask.Key).Scan(&c.Digest, &c.RunID)
	})
	return c, err
}

// DependencyKeyDone records the Run of the change that claimed actor's
// key.
func (s *Store) DependencyKeyDone(ctx context.Context, actor, key, runID string) error {
	return s.write(ctx, "record a dependencies change's key", durable, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, qDependencyKeyDone, actor, key, runID)
		return err
	})
}

// DependencyKeyForget deletes actor's key while its change is not done.
func (s *Store) DependencyKeyForget(ctx context.Context, actor, key string) error {
	return s.write(ctx, "forget a dependencies change's key", routine, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, qDependencyKeyForget, actor, key)
		return err
	})
}
