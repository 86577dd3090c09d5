package replica

import (
	"context"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
)

// The console keeps two-step secrets, and reads and changes whether every
// user must have one, through the live activation's runtime role, as it
// signs users in.
var _ account.TwoStepStore = liveReaders{}

func (l liveReaders) TwoStepOf(ctx context.Context, userID string) (account.TwoStep, error) {
	rt, err := l.runtime()
	if err != nil {
		return account.TwoStep{}, err
	}
	return rt.TwoStepOf(ctx, userID)
}

func (l liveReaders) TwoStepBegin(ctx context.Context, userID, secret string) error {
	rt, err := l.runtime()
	if err != nil {
		return err
	}
	return rt.TwoStepBegin(ctx, userID, secret)
}

func (l liveReaders) TwoStepConfirm(ctx context.Context, userID, name, actor, secret string, step int64, recovery []string) error {
	rt, err := l.runtime()
	if err != nil {
		return err
	}
	return rt.TwoStepConfirm(ctx, userID, name, actor, secret, step, recovery)
}

func (l liveReaders) TwoStepUseStep(ctx context.Context, userID string, step int64) (bool, error) {
	rt, err := l.runtime()
	if err != nil {
		return false, err
	}
	return rt.TwoStepUseStep(ctx, userID, step)
}

func (l liveReaders) TwoStepUseRecovery(ctx context.Context, userID, name, actor, digest string) (bool, error) {
	rt, err := l.runtime()
	if err != nil {
		return false, err
	}
	return rt.TwoStepUseRecovery(ctx, userID, name, actor, digest)
}

func (l liveReaders) TwoStepOff(ctx context.Context, userID, name, actor string) error {
	rt, err := l.runtime()
	if err != nil {
		return err
	}
	return rt.TwoStepOff(ctx, userID, name, actor)
}

func (l liveReaders) PendingStepCreate(ctx context.Context, p account.PendingStep, lifetime time.Duration) error {
	rt, err := l.runtime()
	if err != nil {
		return err
	}
	return rt.PendingStepCreate(ctx, p, lifetime)
}

func (l liveReaders) PendingStepOf(ctx context.Context, digest []byte) (account.PendingStep, error) {
	rt, err := l.runtime()
	if err != nil {
		return account.PendingStep{}, err
	}
	return rt.PendingStepOf(ctx, digest)
}

func (l liveReaders) PendingStepUse(ctx context.Context, digest []byte) (bool, error) {
	rt, err := l.runtime()
	if err != nil {
		return false, err
	}
	return rt.PendingStepUse(ctx, digest)
}

func (l liveReaders) TwoStepRequired(ctx context.Context) (bool, error) {
	rt, err := l.runtime()
	if err != nil {
		return false, err
	}
	return rt.TwoStepRequired(ctx)
}

func (l liveReaders) TwoStepRequire(ctx context.Context, on bool, actor string) (bool, error) {
	rt, err := l.runtime()
	if err != nil {
		return false, err
	}
	return rt.TwoStepRequire(ctx, on, actor)
}

func (l liveReaders) TwoStepWalled(ctx context.Context, userID string) (bool, error) {
	rt, err := l.runtime()
	if err != nil {
		return false, err
	}
	return rt.TwoStepWalled(ctx, userID)
}
