package account

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// PasswordChanger changes a signed-in user's own password: the console's
// account page, which checks the current password against the hash it
// read first. On the cluster the runtime role does it, which may not
// update accounts but through the one database function for it.
type PasswordChanger interface {
	// UserChangePassword replaces the hash of the enabled account id only
	// while it is still currentHash, in one write, so a password set,
	// an account disabled or deleted since currentHash was read refuses
	// it (ErrPasswordChangedMeanwhile) rather than overwriting what
	// happened in between. The new hash has a new PasswordStamp: every
	// session of the user ends at its next request.
	UserChangePassword(ctx context.Context, id, currentHash, newHash, actor string) error
}

// ErrPasswordChangedMeanwhile refuses a password change whose account
// changed since its current password was checked.
func ErrPasswordChangedMeanwhile() error {
	return qlerror.New(qlerror.Conflict, "the account's password was changed, or the account disabled or deleted, while this change was made; sign in again and retry")
}
