package replica

import (
	"context"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/account"
)

// adminUsers is console account management with permission errors
// explained: only the admin role creates, changes and deletes accounts.
type adminUsers struct{ a *pgstore.Admin }

func (u adminUsers) UserCreate(ctx context.Context, n account.NewUser) (account.User, error) {
	res, err := u.a.UserCreate(ctx, n)
	return res, explainRole(err, "creating console users", "admin")
}

func (u adminUsers) UserList(ctx context.Context) ([]account.User, error) {
	res, err := u.a.UserList(ctx)
	return res, explainRole(err, "listing console users", "admin")
}

func (u adminUsers) UserDisable(ctx context.Context, name, actor string) (bool, error) {
	changed, err := u.a.UserDisable(ctx, name, actor)
	return changed, explainRole(err, "disabling console users", "admin")
}

func (u adminUsers) UserEnable(ctx context.Context, name, hash, actor string) (bool, error) {
	changed, err := u.a.UserEnable(ctx, name, hash, actor)
	return changed, explainRole(err, "enabling console users", "admin")
}

func (u adminUsers) UserDelete(ctx context.Context, name, actor string) error {
	return explainRole(u.a.UserDelete(ctx, name, actor), "deleting console users", "admin")
}

func (u adminUsers) UserSetPassword(ctx context.Context, name, hash, actor string) error {
	return explainRole(u.a.UserSetPassword(ctx, name, hash, actor), "setting console passwords", "admin")
}

func (u adminUsers) UserSetProjects(ctx context.Context, name string, projects []string, actor string) error {
	return explainRole(u.a.UserSetProjects(ctx, name, projects, actor), "binding console users to projects", "admin")
}

func (u adminUsers) UserResetTwoStep(ctx context.Context, name, actor string) (account.TwoStepReset, error) {
	done, err := u.a.UserResetTwoStep(ctx, name, actor)
	return done, explainRole(err, "resetting console users' two-step sign-in", "admin")
}

func (u adminUsers) TwoStepRequired(ctx context.Context) (bool, error) {
	on, err := u.a.TwoStepRequired(ctx)
	return on, explainRole(err, "reading whether two-step sign-in is required", "admin")
}

func (u adminUsers) TwoStepRequire(ctx context.Context, on bool, actor string) (bool, error) {
	changed, err := u.a.TwoStepRequire(ctx, on, actor)
	return changed, explainRole(err, "requiring two-step sign-in", "admin")
}
