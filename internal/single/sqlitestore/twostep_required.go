package sqlitestore

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/account"
)

var (
	_ account.TwoStepPolicy = (*Store)(nil)
	_ account.TwoStepWall   = (*Store)(nil)
)

// TwoStepRequired reports whether every user must sign in with two-step.
func (s *Store) TwoStepRequired(ctx context.Context) (bool, error) {
	var on bool
	err := s.read(ctx, "read whether two-step sign-in is required", func(tx *txn) error {
		return tx.QueryRowContext(ctx, qTwoStepRequired).Scan(&on)
	})
	return on, err
}

// TwoStepRequire requires two-step sign-in of every user, or not, with
// its audit record; false, recording nothing, when it was so already.
func (s *Store) TwoStepRequire(ctx context.Context, on bool, actor string) (bool, error) {
	now := s.nowMs()
	changed := false
	err := s.write(ctx, "require two-step sign-in "+account.OnOff(on), durable, func(tx *txn) error {
		res, err := tx.ExecContext(ctx, qTwoStepRequire, on)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		changed = true
		return appendAudit(ctx, tx, now, account.TwoStepRequiredEntry(on, actor))
	})
	return changed && err == nil, err
}

// TwoStepWalled reports whether the user may only set up two-step.
func (s *Store) TwoStepWalled(ctx context.Context, userID string) (bool, error) {
	var walled bool
	err := s.read(ctx, "read whether a user must set up two-step sign-in", func(tx *txn) error {
		return tx.QueryRowContext(ctx, qTwoStepWalled, userID).Scan(&walled)
	})
	return walled, err
}
