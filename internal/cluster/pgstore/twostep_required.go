package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/core/account"
)

// An owner requires two-step sign-in on a replica's account page (the
// runtime role), an operator with `ql users require-two-step` (the admin
// role); the replicas' console wall reads it (grants.go).
var (
	_ account.TwoStepPolicy = (*Runtime)(nil)
	_ account.TwoStepWall   = (*Runtime)(nil)
	_ account.TwoStepPolicy = (*Admin)(nil)
)

// TwoStepRequired reports whether every user must sign in with two-step.
func (s *Runtime) TwoStepRequired(ctx context.Context) (bool, error) {
	return twoStepRequired(ctx, s.pool)
}

// TwoStepRequire requires two-step sign-in of every user, or not, with
// its audit record: an owner on a replica's account page.
func (s *Runtime) TwoStepRequire(ctx context.Context, on bool, actor string) (bool, error) {
	return twoStepRequire(ctx, s.pool, on, actor)
}

// TwoStepRequired reports whether every user must sign in with two-step.
func (a *Admin) TwoStepRequired(ctx context.Context) (bool, error) {
	return twoStepRequired(ctx, a.pool)
}

// TwoStepRequire requires two-step sign-in of every user, or not, with
// its audit record: `ql users require-two-step`.
func (a *Admin) TwoStepRequire(ctx context.Context, on bool, actor string) (bool, error) {
	return twoStepRequire(ctx, a.pool, on, actor)
}

// TwoStepWalled reports whether the user may only set up two-step, as
// the database says now: a change made on any replica holds at once.
func (s *Runtime) TwoStepWalled(ctx context.Context, userID string) (bool, error) {
	var walled bool
	err := s.pool.QueryRow(ctx, sqlTwoStepWalled, userID).Scan(&walled)
	return walled, mapErr(err, "reading whether a user must set up two-step sign-in")
}

func twoStepRequired(ctx context.Context, pool *pgxpool.Pool) (bool, error) {
	var on bool
	err := pool.QueryRow(ctx, sqlTwoStepRequired).Scan(&on)
	return on, mapErr(err, "reading whether two-step sign-in is required")
}

// twoStepRequire changes the setting and records it in one transaction;
// false, recording nothing, when it was so already.
func twoStepRequire(ctx context.Context, pool *pgxpool.Pool, on bool, actor string) (bool, error) {
	changed := false
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, sqlTwoStepRequire, on)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		changed = true
		return appendAudit(ctx, tx, nil, account.TwoStepRequiredEntry(on, actor))
	})
	if err != nil {
		return false, mapErr(err, "requiring two-step sign-in "+account.OnOff(on))
	}
	return changed, nil
}
