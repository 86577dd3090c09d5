package replica

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/account"
)

// The console signs users in through the live activation's runtime role,
// as it authenticates tokens.
var _ account.Authenticator = liveReaders{}

func (l liveReaders) UserCredentials(ctx context.Context, name string) (account.User, string, error) {
	rt, err := l.runtime()
	if err != nil {
		return account.User{}, "", err
	}
	return rt.UserCredentials(ctx, name)
}

func (l liveReaders) UserByID(ctx context.Context, id string) (account.User, error) {
	rt, err := l.runtime()
	if err != nil {
		return account.User{}, err
	}
	return rt.UserByID(ctx, id)
}

func (l liveReaders) UserSignedIn(ctx context.Context, id string, atMs int64) error {
	rt, err := l.runtime()
	if err != nil {
		return err
	}
	return rt.UserSignedIn(ctx, id, atMs)
}
