package replica

import (
	"context"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/console"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// The console signs users in through the live activation's runtime role,
// as it authenticates tokens.
var _ account.Authenticator = liveReaders{}

// The setup page and the account page's password change go through the
// runtime role's database functions (pgstore.Runtime).
var (
	_ account.FirstOwner      = liveReaders{}
	_ account.PasswordChanger = liveReaders{}
)

func (l liveReaders) UsersExist(ctx context.Context) (bool, error) {
	rt, err := l.runtime()
	if err != nil {
		return false, err
	}
	return rt.UsersExist(ctx)
}

func (l liveReaders) UserCreateFirst(ctx context.Context, u account.NewUser) (account.User, error) {
	rt, err := l.runtime()
	if err != nil {
		return account.User{}, err
	}
	return rt.UserCreateFirst(ctx, u)
}

func (l liveReaders) UserChangePassword(ctx context.Context, id, currentHash, newHash, actor string) error {
	rt, err := l.runtime()
	if err != nil {
		return err
	}
	return rt.UserChangePassword(ctx, id, currentHash, newHash, actor)
}

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

// Backlog reads the backlog through the live activation (the console's
// overview; /metrics reads the whole installation's the same way).
func (l liveReaders) Backlog(ctx context.Context, limit int, in []string) (schedule.Backlog, error) {
	rt, err := l.runtime()
	if err != nil {
		return schedule.Backlog{}, err
	}
	return rt.Backlog(ctx, limit, in)
}

// Workers lists the workers with their live sessions for the console.
func (l liveReaders) Workers(ctx context.Context) ([]console.Worker, error) {
	rt, err := l.runtime()
	if err != nil {
		return nil, err
	}
	list, err := rt.WorkerList(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]console.Worker, 0, len(list))
	for _, w := range list {
		out = append(out, console.Worker{Name: w.Name, State: w.State, Stopping: w.DrainedBy == pgstore.DrainedByWorker, Resumed: w.Resumed, Sessions: w.Sessions, Capacity: w.Capacity,
			FreeSlots: w.FreeSlots, LastHeartbeatMs: w.LastHeartbeatMs, HeartbeatAgeMs: w.HeartbeatAgeMs, SilentForMs: w.SilentFor().Milliseconds(),
			Labels: w.PlacementLabels(), Reads: w.Reads()})
	}
	return out, nil
}

// Replicas lists the replicas by their heartbeats for the console's
// overview.
func (l liveReaders) Replicas(ctx context.Context) ([]console.Replica, error) {
	rt, err := l.runtime()
	if err != nil {
		return nil, err
	}
	list, err := rt.ReplicaList(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]console.Replica, 0, len(list))
	for _, x := range list {
		out = append(out, console.Replica{ID: x.ID, Host: x.Host, PID: x.PID, Version: x.Version, StartedAtMs: x.StartedAtMs,
			LastSeenAtMs: x.LastSeenAtMs, Live: x.Live})
	}
	return out, nil
}
