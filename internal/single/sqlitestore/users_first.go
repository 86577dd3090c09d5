package sqlitestore

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/account"
)

var _ account.FirstOwner = (*Store)(nil)

// UsersExist reports whether any console account exists.
func (s *Store) UsersExist(ctx context.Context) (bool, error) {
	var exist bool
	err := s.read(ctx, "look for console users", func(tx *txn) error {
		return tx.QueryRowContext(ctx, qUsersExist).Scan(&exist)
	})
	return exist, err
}

// UserCreateFirst stores the first console account, only while there is
// none; the writer's transaction makes the check and the insert one step.
func (s *Store) UserCreateFirst(ctx context.Context, u account.NewUser) (account.User, error) {
	out := account.User{ID: u.ID, Name: u.Name, Role: u.Role, CreatedAtMs: s.nowMs()}
	err := s.write(ctx, "create the first user "+u.Name, durable, func(tx *txn) error {
		res, err := tx.ExecContext(ctx, qUserInsertFirst, u.ID, u.Name, string(u.Role), u.Hash, out.CreatedAtMs)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmpErr(err, account.ErrUsersExist())
		}
		return appendAudit(ctx, tx, out.CreatedAtMs, account.Created(u, "the first owner, with the setup code"))
	})
	if err != nil {
		return account.User{}, err
	}
	return out, nil
}
