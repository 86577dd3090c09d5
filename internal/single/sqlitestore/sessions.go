package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/websession"
)

var _ websession.Store = (*Store)(nil)

// Every time of a session is the store's clock (Config.NowMs), the one
// clock of a single-node server, as the cluster's is its database's.

// SessionCreate stores a console session signed in now, ending its
// principal's oldest past perPrincipal and up to websession.ExpiredBatch
// expired ones in the same transaction.
func (s *Store) SessionCreate(ctx context.Context, in websession.Signin, lifetime time.Duration, perPrincipal int) (websession.Session, error) {
	out := websession.Session{Signin: in}
	err := s.write(ctx, "start a console session", routine, func(tx *txn) error {
		now := s.nowMs()
		out.CreatedAtMs, out.LastSeenAtMs, out.ExpiresAtMs = now, now, now+lifetime.Milliseconds()
		if _, err := tx.ExecContext(ctx, qSessionDeleteExpired, now, websession.ExpiredBatch); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, qSessionEvict, in.Principal(), max(perPrincipal-1, 0)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, qSessionInsert, in.Digest, in.Principal(), sql.NullString{String: in.UserID, Valid: in.UserID != ""}, sql.NullString{String: in.Stamp, Valid: in.UserID != ""}, in.TokenDigest,
			in.Name, string(in.Scope), out.CreatedAtMs, out.ExpiresAtMs)
		return err
	})
	if err != nil {
		return websession.Session{}, err
	}
	return out, nil
}

// SessionByDigest returns the live session of digest; one expired by the
// store's clock is deleted and not found.
func (s *Store) SessionByDigest(ctx context.Context, digest []byte) (websession.Session, error) {
	out := websession.Session{Signin: websession.Signin{Digest: digest}}
	err := s.read(ctx, "check a console session", func(tx *txn) error {
		var user, stamp sql.NullString
		var scope string
		err := tx.QueryRowContext(ctx, qSessionByDigest, digest).Scan(&user, &stamp, &out.TokenDigest, &out.Name, &scope,
			&out.CreatedAtMs, &out.LastSeenAtMs, &out.ExpiresAtMs)
		out.UserID, out.Stamp, out.Scope = user.String, stamp.String, apitoken.Scope(scope)
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return websession.Session{}, websession.ErrNoSession()
	}
	if err != nil {
		return websession.Session{}, err
	}
	out.ReadAtMs = s.nowMs()
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

// SessionSeen records a use of the session now, at most once per
// websession.SeenEvery.
func (s *Store) SessionSeen(ctx context.Context, digest []byte) error {
	return s.write(ctx, "record a console session's use", routine, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, qSessionSeen, digest, s.nowMs(), websession.SeenEvery.Milliseconds())
		return err
	})
}

// SessionEnd deletes the session of digest.
func (s *Store) SessionEnd(ctx context.Context, digest []byte) error {
	return s.write(ctx, "end a console session", routine, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, qSessionEnd, digest)
		return err
	})
}

// SessionEndOthers deletes the user's sessions but keep's.
func (s *Store) SessionEndOthers(ctx context.Context, userID string, keep []byte) error {
	return s.write(ctx, "end a user's other console sessions", routine, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, qSessionEndOthers, websession.Signin{UserID: userID}.Principal(), keep)
		return err
	})
}

// endSessionsOf deletes every session of principal inside tx: the write
// that disables, deletes or re-passwords a user or revokes a token ends
// its sessions with it.
func endSessionsOf(ctx context.Context, tx *txn, principal string) error {
	_, err := tx.ExecContext(ctx, qSessionEndPrincipal, principal)
	return err
}
