package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/websession"
)

var _ websession.Store = (*Runtime)(nil)

// SessionCreate stores a console session signed in now on the database's
// clock, ending its principal's oldest past perPrincipal and up to
// websession.ExpiredBatch expired ones in the same transaction. Every time
// of it is the database's: a replica whose clock is off by minutes would
// otherwise move the session's expiry by as much on every replica.
func (s *Runtime) SessionCreate(ctx context.Context, in websession.Signin, lifetime time.Duration, perPrincipal int) (websession.Session, error) {
	out := websession.Session{Signin: in}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sqlConsoleSessionDeleteExpired, websession.ExpiredBatch); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, sqlConsoleSessionEvict, in.Principal(), max(perPrincipal-1, 0)); err != nil {
			return err
		}
		var user, stamp *string
		if in.UserID != "" {
			user, stamp = &in.UserID, &in.Stamp
		}
		return tx.QueryRow(ctx, sqlConsoleSessionInsert, in.Digest, in.Principal(), user, stamp, in.TokenDigest, in.Name, string(in.Scope), lifetime.Milliseconds()).
			Scan(&out.CreatedAtMs, &out.ExpiresAtMs)
	})
	if err != nil {
		return websession.Session{}, mapErr(err, "starting a console session")
	}
	out.LastSeenAtMs = out.CreatedAtMs
	return out, nil
}

// SessionByDigest returns the live session of digest; one expired by the
// database's clock is deleted and not found.
func (s *Runtime) SessionByDigest(ctx context.Context, digest []byte) (websession.Session, error) {
	out := websession.Session{Signin: websession.Signin{Digest: digest}}
	var user, stamp *string
	var scope string
	err := s.pool.QueryRow(ctx, sqlConsoleSessionByDigest, digest).Scan(&user, &stamp, &out.TokenDigest, &out.Name, &scope,
		&out.CreatedAtMs, &out.LastSeenAtMs, &out.ExpiresAtMs, &out.ReadAtMs)
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
	if out.ExpiresAtMs <= out.ReadAtMs {
		// The row decides: an expired session is over whether or not its
		// delete goes through (a writer holding the database would
		// otherwise keep it answering an error, never "no session"), and
		// every later read finds it expired again and retries the delete.
		_ = s.SessionEnd(ctx, digest)
		return websession.Session{}, websession.ErrNoSession()
	}
	return out, nil
}

// SessionSeen records a use of the session now on the database's clock, at
// most once per websession.SeenEvery.
func (s *Runtime) SessionSeen(ctx context.Context, digest []byte) error {
	_, err := s.pool.Exec(ctx, sqlConsoleSessionSeen, digest, websession.SeenEvery.Milliseconds())
	return mapErr(err, "recording a console session's use")
}

// SessionEnd deletes the session of digest.
func (s *Runtime) SessionEnd(ctx context.Context, digest []byte) error {
	_, err := s.pool.Exec(ctx, sqlConsoleSessionEnd, digest)
	return mapErr(err, "ending a console session")
}

// SessionEndOthers deletes the user's sessions but keep's.
func (s *Runtime) SessionEndOthers(ctx context.Context, userID string, keep []byte) error {
	_, err := s.pool.Exec(ctx, sqlConsoleSessionEndOthers, websession.Signin{UserID: userID}.Principal(), keep)
	return mapErr(err, "ending a user's other console sessions")
}
