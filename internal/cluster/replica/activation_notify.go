package replica

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/notify"
)

// The API and the console list the outbox and retry dead notifications
// through the live activation's runtime role, as `ql notifications` does
// with that role's URL.
var (
	_ notify.Manager = liveReaders{}
	_ notify.Placer  = liveReaders{}
)

func (l liveReaders) NotificationsList(ctx context.Context, q notify.ListQuery) ([]notify.Message, string, error) {
	rt, err := l.runtime()
	if err != nil {
		return nil, "", err
	}
	return rt.NotificationsList(ctx, q)
}

func (l liveReaders) NotificationProject(ctx context.Context, id string) (string, error) {
	rt, err := l.runtime()
	if err != nil {
		return "", err
	}
	return rt.NotificationProject(ctx, id)
}

func (l liveReaders) NotificationRetry(ctx context.Context, id, actor string) (notify.Message, error) {
	rt, err := l.runtime()
	if err != nil {
		return notify.Message{}, err
	}
	return rt.NotificationRetry(ctx, id, actor)
}
