package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/websession"
)

// The runtime role keeps the two-step secrets of the users a replica's
// console serves (grants.go); the admin role only resets them.
var _ account.TwoStepStore = (*Runtime)(nil)

// TwoStepOf returns the user's two-step; the zero TwoStep when none.
func (s *Runtime) TwoStepOf(ctx context.Context, userID string) (account.TwoStep, error) {
	ts, err := twoStepOf(ctx, s.pool, userID)
	return ts, mapErr(err, "reading a user's two-step sign-in")
}

func twoStepOf(ctx context.Context, q querier, userID string) (account.TwoStep, error) {
	var ts account.TwoStep
	err := q.QueryRow(ctx, sqlTwoStepOf, userID).Scan(&ts.Secret, &ts.On, &ts.LastStep, &ts.RecoveryLeft)
	if errors.Is(err, pgx.ErrNoRows) {
		return account.TwoStep{}, nil
	}
	return ts, err
}

// TwoStepBegin stores a secret waiting for its first code.
func (s *Runtime) TwoStepBegin(ctx context.Context, userID, secret string) error {
	tag, err := s.pool.Exec(ctx, sqlTwoStepBegin, userID, secret)
	if err == nil && tag.RowsAffected() == 0 {
		return account.ErrTwoStepOn()
	}
	return mapErr(err, "beginning a user's two-step sign-in")
}

// TwoStepConfirm turns the waiting secret on with its recovery codes.
func (s *Runtime) TwoStepConfirm(ctx context.Context, userID, name, actor, secret string, step int64, recovery []string) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, sqlTwoStepConfirm, userID, secret, step)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			if ts, err := twoStepOf(ctx, tx, userID); err == nil && ts.On {
				return account.ErrTwoStepOn()
			}
			return account.ErrTwoStepNotBegun()
		}
		if _, err := tx.Exec(ctx, sqlRecoveryCodeInsert, userID, recovery); err != nil {
			return err
		}
		return appendAudit(ctx, tx, nil, account.Change{Action: audit.UserTwoStepEnabled, Name: name, Actor: actor}.Entry(userID))
	})
	return mapErr(err, "turning a user's two-step sign-in on")
}

// TwoStepUseStep records an accepted code's time step, once on every
// replica.
func (s *Runtime) TwoStepUseStep(ctx context.Context, userID string, step int64) (bool, error) {
	tag, err := s.pool.Exec(ctx, sqlTwoStepUseStep, userID, step)
	if err != nil {
		return false, mapErr(err, "using a two-step code")
	}
	return tag.RowsAffected() == 1, nil
}

// TwoStepUseRecovery spends a recovery code, once.
func (s *Runtime) TwoStepUseRecovery(ctx context.Context, userID, name, actor, digest string) (bool, error) {
	used := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, sqlRecoveryCodeUse, userID, digest)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		used = true
		return appendAudit(ctx, tx, nil, account.Change{Action: audit.UserRecoveryCodeUsed, Name: name, Actor: actor}.Entry(userID))
	})
	return used && err == nil, mapErr(err, "using a recovery code")
}

// TwoStepOff turns two-step off.
func (s *Runtime) TwoStepOff(ctx context.Context, userID, name, actor string) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, sqlTwoStepOff, userID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return account.ErrTwoStepOff()
		}
		return appendAudit(ctx, tx, nil, account.Change{Action: audit.UserTwoStepDisabled, Name: name, Actor: actor}.Entry(userID))
	})
	return mapErr(err, "turning a user's two-step sign-in off")
}

// UserResetTwoStep forgets the account's two-step and, when it was on,
// records the reset and ends the account's sessions on every replica.
func (a *Admin) UserResetTwoStep(ctx context.Context, name, actor string) (account.TwoStepReset, error) {
	done := account.ResetNothing
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		var id string
		var wasOn bool
		err := tx.QueryRow(ctx, sqlTwoStepReset, name).Scan(&id, &wasOn)
		if errors.Is(err, pgx.ErrNoRows) {
			return tx.QueryRow(ctx, sqlUserIDOf, name).Scan(&id)
		}
		if err != nil {
			return err
		}
		if done = account.ResetWaiting; !wasOn {
			return nil
		}
		done = account.ResetOn
		if err := appendAudit(ctx, tx, nil, account.Change{Action: audit.UserTwoStepReset, Name: name, Actor: actor}.Entry(id)); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, sqlConsoleSessionEndPrincipal, websession.Signin{UserID: id}.Principal())
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return account.ResetNothing, account.ErrNoSuchUser(name)
	}
	if err != nil {
		return account.ResetNothing, mapErr(err, "resetting the two-step sign-in of user "+name)
	}
	return done, nil
}
