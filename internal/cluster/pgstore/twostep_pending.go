package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/account"
)

var _ account.PendingSteps = (*Runtime)(nil)

// PendingStepCreate stores a sign-in waiting for its second step, ending
// lifetime from now on the database's clock, and deletes up to
// account.ExpiredBatch ended ones in the same transaction.
func (s *Runtime) PendingStepCreate(ctx context.Context, p account.PendingStep, lifetime time.Duration) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sqlTwoStepPendingDeleteExpired, account.ExpiredBatch); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, sqlTwoStepPendingInsert, p.Digest, p.UserID, p.Stamp, p.Browser, lifetime.Milliseconds())
		return err
	})
	return mapErr(err, "storing a sign-in's second step")
}

// PendingStepOf returns the second step of digest; one ended by the
// database's clock is deleted and not found.
func (s *Runtime) PendingStepOf(ctx context.Context, digest []byte) (account.PendingStep, error) {
	p := account.PendingStep{Digest: digest}
	var nowMs int64
	err := s.pool.QueryRow(ctx, sqlTwoStepPendingOf, digest).Scan(&p.UserID, &p.Stamp, &p.Browser, &p.ExpiresAtMs, &nowMs)
	if errors.Is(err, pgx.ErrNoRows) {
		return account.PendingStep{}, account.ErrNoPendingStep()
	}
	if err != nil {
		return account.PendingStep{}, mapErr(err, "reading a sign-in's second step")
	}
	if p.ExpiresAtMs <= nowMs {
		if _, err := s.pool.Exec(ctx, sqlTwoStepPendingEnd, digest); err != nil {
			return account.PendingStep{}, mapErr(err, "deleting an ended second step")
		}
		return account.PendingStep{}, account.ErrNoPendingStep()
	}
	return p, nil
}

// PendingStepUse deletes the second step of digest while it has not
// ended: true for the one request, on any replica, that did.
func (s *Runtime) PendingStepUse(ctx context.Context, digest []byte) (bool, error) {
	tag, err := s.pool.Exec(ctx, sqlTwoStepPendingUse, digest)
	if err != nil {
		return false, mapErr(err, "using a sign-in's second step")
	}
	return tag.RowsAffected() == 1, nil
}
