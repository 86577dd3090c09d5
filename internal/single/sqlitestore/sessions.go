package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/websession"
)

var _ websession.Store = (*Store)(nil)

// SessionCreate stores a console session, ending its principal's oldest
// past perPrincipal and up to websession.ExpiredBatch expired ones in the
// same transaction.
func (s *Store) SessionCreate(ctx context.Context, ss websession.Session, perPrincipal int) error {
	return s.write(ctx, "start a console session", routine, func(tx *txn) error {
		if _, err := tx.ExecContext(ctx, qSessionDeleteExpired, ss.CreatedAtMs, websession.ExpiredBatch); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, qSessionEvict, ss.Principal(), max(perPrincipal-1, 0)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, qSessionInsert, ss.Digest, ss.Principal(), sql.NullString{String: ss.UserID, Valid: ss.UserID != ""}, sql.NullString{String: ss.Stamp, Valid: ss.UserID != ""}, ss.TokenDigest,
			ss.Name, string(ss.Scope), ss.CreatedAtMs, ss.ExpiresAtMs)
		return err
	})
}

// SessionByDigest returns the live session of digest; an expired one is
// deleted and not found.
func (s *Store) SessionByDigest(ctx context.Context, digest []byte, nowMs int64) (websession.Session, error) {
	out := websession.Session{Digest: digest}
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
func (s *Store) SessionSeen(ctx context.Context, digest []byte, atMs int64) error {
	return s.write(ctx, "record a console session's use", routine, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, qSessionSeen, digest, atMs, websession.SeenEvery.Milliseconds())
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
		_, err := tx.ExecContext(ctx, qSessionEndOthers, websession.Session{UserID: userID}.Principal(), keep)
		return err
	})
}
