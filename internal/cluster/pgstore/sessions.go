package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/websession"
)

var _ websession.Store = (*Runtime)(nil)

// SessionCreate stores a console session, ending its principal's oldest
// past perPrincipal and up to websession.ExpiredBatch expired ones in the
// same transaction. The times are the console's, as a token's use is: a
// replica's clock off by some seconds moves a 12-hour expiry by as much.
func (s *Runtime) SessionCreate(ctx context.Context, ss websession.Session, perPrincipal int) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sqlConsoleSessionDeleteExpired, ss.CreatedAtMs, websession.ExpiredBatch); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, sqlConsoleSessionEvict, ss.Principal(), max(perPrincipal-1, 0)); err != nil {
			return err
		}
		var user, stamp *string
		if ss.UserID != "" {
			user, stamp = &ss.UserID, &ss.Stamp
		}
		_, err := tx.Exec(ctx, sqlConsoleSessionInsert, ss.Digest, ss.Principal(), user, stamp, ss.TokenDigest, ss.Name, string(ss.Scope), ss.CreatedAtMs, ss.ExpiresAtMs)
		return err
	})
	return mapErr(err, "starting a console session")
}

// SessionByDigest returns the live session of digest; an expired one is
// deleted and not found.
func (s *Runtime) SessionByDigest(ctx context.Context, digest []byte, nowMs int64) (websession.Session, error) {
	out := websession.Session{Digest: digest}
	var user, stamp *string
	var scope string
	err := s.pool.QueryRow(ctx, sqlConsoleSessionByDigest, digest).Scan(&user, &stamp, &out.TokenDigest, &out.Name, &scope,
		&out.CreatedAtMs, &out.LastSeenAtMs, &out.ExpiresAtMs)
	if errors.Is(err, pgx.ErrNoRows) {
		return websession.Session{}, websession.ErrNoSession()
	}
	if err != nil {
		return websession.Session{}, mapErr(err, "checking a console session")
	}
	if user != nil {
		out.UserID = *user
	}
	if stamp != nil {
		out.Stamp = *stamp
	}
	out.Scope = apitoken.Scope(scope)
	if out.ExpiresAtMs <= nowMs {
		if err := s.SessionEnd(ctx, digest); err != nil {
			return websession.Session{}, err
		}
		return websession.Session{}, websession.ErrNoSession()
	}
	return out, nil
}

// SessionSeen records a use of the session, at most once per
// websession.SeenEvery.
func (s *Runtime) SessionSeen(ctx context.Context, digest []byte, atMs int64) error {
	_, err := s.pool.Exec(ctx, sqlConsoleSessionSeen, digest, atMs, websession.SeenEvery.Milliseconds())
	return mapErr(err, "recording a console session's use")
}

// SessionEnd deletes the session of digest.
func (s *Runtime) SessionEnd(ctx context.Context, digest []byte) error {
	_, err := s.pool.Exec(ctx, sqlConsoleSessionEnd, digest)
	return mapErr(err, "ending a console session")
}

// SessionEndOthers deletes the user's sessions but keep's.
func (s *Runtime) SessionEndOthers(ctx context.Context, userID string, keep []byte) error {
	_, err := s.pool.Exec(ctx, sqlConsoleSessionEndOthers, websession.Session{UserID: userID}.Principal(), keep)
	return mapErr(err, "ending a user's other console sessions")
}
