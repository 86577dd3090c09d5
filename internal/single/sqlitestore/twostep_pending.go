package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
)

var _ account.PendingSteps = (*Store)(nil)

// PendingStepCreate stores a sign-in waiting for its second step, ending
// lifetime from now on the store's clock, and deletes up to
// account.ExpiredBatch ended ones in the same transaction.
func (s *Store) PendingStepCreate(ctx context.Context, p account.PendingStep, lifetime time.Duration) error {
	return s.write(ctx, "store a sign-in's second step", routine, func(tx *txn) error {
		now := s.nowMs()
		if _, err := tx.ExecContext(ctx, qTwoStepPendingDeleteExpired, now, account.ExpiredBatch); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, qTwoStepPendingInsert, p.Digest, p.UserID, p.Stamp, p.Browser, now+lifetime.Milliseconds())
		return err
	})
}

// PendingStepOf returns the second step of digest; one ended by the
// store's clock is deleted and not found.
func (s *Store) PendingStepOf(ctx context.Context, digest []byte) (account.PendingStep, error) {
	p := account.PendingStep{Digest: digest}
	err := s.read(ctx, "read a sign-in's second step", func(tx *txn) error {
		return tx.QueryRowContext(ctx, qTwoStepPendingOf, digest).Scan(&p.UserID, &p.Stamp, &p.Browser, &p.ExpiresAtMs)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return account.PendingStep{}, account.ErrNoPendingStep()
	}
	if err != nil {
		return account.PendingStep{}, err
	}
	if p.ExpiresAtMs <= s.nowMs() {
		err := s.write(ctx, "delete an ended second step", routine, func(tx *txn) error {
			_, err := tx.ExecContext(ctx, qTwoStepPendingEnd, digest)
			return err
		})
		if err != nil {
			return account.PendingStep{}, err
		}
		return account.PendingStep{}, account.ErrNoPendingStep()
	}
	return p, nil
}

// PendingStepUse deletes the second step of digest while it has not
// ended: true for the one request that did.
func (s *Store) PendingStepUse(ctx context.Context, digest []byte) (bool, error) {
	used := false
	err := s.write(ctx, "use a sign-in's second step", routine, func(tx *txn) error {
		res, err := tx.ExecContext(ctx, qTwoStepPendingUse, digest, s.nowMs())
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		used = n == 1
		return err
	})
	return used && err == nil, err
}
