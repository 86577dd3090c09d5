package replica

import (
	"context"
	"time"

	"github.com/qinglong/qinglong/internal/core/websession"
)

// The console's sessions, through the live activation's runtime: stored in
// the database, so a session made on one replica works on every other.

var _ websession.Store = liveReaders{}

func (l liveReaders) SessionCreate(ctx context.Context, s websession.Signin, lifetime time.Duration, perPrincipal int) (websession.Session, error) {
	rt, err := l.runtime()
	if err != nil {
		return websession.Session{}, err
	}
	return rt.SessionCreate(ctx, s, lifetime, perPrincipal)
}

func (l liveReaders) SessionByDigest(ctx context.Context, digest []byte) (websession.Session, error) {
	rt, err := l.runtime()
	if err != nil {
		return websession.Session{}, err
	}
	return rt.SessionByDigest(ctx, digest)
}

func (l liveReaders) SessionSeen(ctx context.Context, digest []byte) error {
	rt, err := l.runtime()
	if err != nil {
		return err
	}
	return rt.SessionSeen(ctx, digest)
}

func (l liveReaders) SessionEnd(ctx context.Context, digest []byte) error {
	rt, err := l.runtime()
	if err != nil {
		return err
	}
	return rt.SessionEnd(ctx, digest)
}

func (l liveReaders) SessionEndOthers(ctx context.Context, userID string, keep []byte) error {
	rt, err := l.runtime()
	if err != nil {
		return err
	}
	return rt.SessionEndOthers(ctx, userID, keep)
}
