package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/websession"
)

var _ account.TwoStepStore = (*Store)(nil)

// TwoStepOf returns the user's two-step; the zero TwoStep when none.
func (s *Store) TwoStepOf(ctx context.Context, userID string) (account.TwoStep, error) {
	var ts account.TwoStep
	err := s.read(ctx, "read a user's two-step sign-in", func(tx *txn) error {
		var err error
		ts, err = twoStepOf(ctx, tx, userID)
		return err
	})
	return ts, err
}

func twoStepOf(ctx context.Context, tx *txn, userID string) (account.TwoStep, error) {
	var ts account.TwoStep
	err := tx.QueryRowContext(ctx, qTwoStepOf, userID).Scan(&ts.Secret, &ts.On, &ts.LastStep, &ts.RecoveryLeft)
	if errors.Is(err, sql.ErrNoRows) {
		return account.TwoStep{}, nil
	}
	return ts, err
}

// TwoStepBegin stores a secret waiting for its first code.
func (s *Store) TwoStepBegin(ctx context.Context, userID, secret string) error {
	return s.write(ctx, "begin a user's two-step sign-in", durable, func(tx *txn) error {
		res, err := tx.ExecContext(ctx, qTwoStepBegin, userID, secret)
		if err != nil {
			return err
		}
		return refuseUnchanged(res, account.ErrTwoStepOn)
	})
}

// TwoStepConfirm turns the waiting secret on with its recovery codes.
func (s *Store) TwoStepConfirm(ctx context.Context, userID, name, actor, secret string, step int64, recovery []string) error {
	now := s.nowMs()
	return s.write(ctx, "turn a user's two-step sign-in on", durable, func(tx *txn) error {
		res, err := tx.ExecContext(ctx, qTwoStepConfirm, userID, secret, now, step)
		if err != nil {
			return err
		}
		if err := refuseUnchanged(res, account.ErrTwoStepNotBegun); err != nil {
			if ts, readErr := twoStepOf(ctx, tx, userID); readErr == nil && ts.On {
				return account.ErrTwoStepOn()
			}
			return err
		}
		for _, d := range recovery {
			if _, err := tx.ExecContext(ctx, qRecoveryCodeInsert, userID, d); err != nil {
				return err
			}
		}
		return appendAudit(ctx, tx, now, account.Change{Action: audit.UserTwoStepEnabled, Name: name, Actor: actor}.Entry(userID))
	})
}

// TwoStepUseStep records an accepted code's time step, once.
func (s *Store) TwoStepUseStep(ctx context.Context, userID string, step int64) (bool, error) {
	used := false
	err := s.write(ctx, "use a two-step code", durable, func(tx *txn) error {
		res, err := tx.ExecContext(ctx, qTwoStepUseStep, userID, step)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		used = n == 1
		return err
	})
	return used && err == nil, err
}

// TwoStepUseRecovery spends a recovery code, once.
func (s *Store) TwoStepUseRecovery(ctx context.Context, userID, name, actor, digest string) (bool, error) {
	now := s.nowMs()
	used := false
	err := s.write(ctx, "use a recovery code", durable, func(tx *txn) error {
		res, err := tx.ExecContext(ctx, qRecoveryCodeUse, userID, digest)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		used = true
		return appendAudit(ctx, tx, now, account.Change{Action: audit.UserRecoveryCodeUsed, Name: name, Actor: actor}.Entry(userID))
	})
	return used && err == nil, err
}

// TwoStepOff turns two-step off.
func (s *Store) TwoStepOff(ctx context.Context, userID, name, actor string) error {
	now := s.nowMs()
	return s.write(ctx, "turn a user's two-step sign-in off", durable, func(tx *txn) error {
		res, err := tx.ExecContext(ctx, qTwoStepOff, userID)
		if err != nil {
			return err
		}
		if err := refuseUnchanged(res, account.ErrTwoStepOff); err != nil {
			return err
		}
		return appendAudit(ctx, tx, now, account.Change{Action: audit.UserTwoStepDisabled, Name: name, Actor: actor}.Entry(userID))
	})
}

// UserResetTwoStep forgets the account's two-step and, when it was on,
// records the reset and ends the account's sessions.
func (s *Store) UserResetTwoStep(ctx context.Context, name, actor string) (account.TwoStepReset, error) {
	now := s.nowMs()
	done := account.ResetNothing
	err := s.write(ctx, "reset the two-step sign-in of user "+name, durable, func(tx *txn) error {
		var id string
		var disabled bool
		err := tx.QueryRowContext(ctx, qUserState, name).Scan(&id, &disabled)
		if errors.Is(err, sql.ErrNoRows) {
			return account.ErrNoSuchUser(name)
		}
		if err != nil {
			return err
		}
		var wasOn bool
		err = tx.QueryRowContext(ctx, qTwoStepReset, id).Scan(&wasOn)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if done = account.ResetWaiting; !wasOn {
			return nil
		}
		done = account.ResetOn
		if err := appendAudit(ctx, tx, now, account.Change{Action: audit.UserTwoStepReset, Name: name, Actor: actor}.Entry(id)); err != nil {
			return err
		}
		return endSessionsOf(ctx, tx, websession.Signin{UserID: id}.Principal())
	})
	if err != nil {
		return account.ResetNothing, err
	}
	return done, nil
}

// refuseUnchanged is refusal() when res changed no row.
func refuseUnchanged(res sql.Result, refusal func() error) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return refusal()
	}
	return nil
}
