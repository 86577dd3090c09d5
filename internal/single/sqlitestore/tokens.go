package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/websession"
)

// TokenCreate stores a token (apitoken.Create validates and draws it).
func (s *Store) TokenCreate(ctx context.Context, t apitoken.NewToken) (apitoken.Token, error) {
	now := s.nowMs()
	out := apitoken.Token{ID: t.ID, Name: t.Name, Scope: t.Scope, CreatedAtMs: now, Projects: t.Projects}
	if t.ExpiresIn > 0 {
		exp := now + t.ExpiresIn.Milliseconds()
		out.ExpiresAtMs = &exp
	}
	err := s.write(ctx, "create token "+t.Name, durable, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, qTokenInsert, t.ID, t.Name, string(t.Scope), t.Digest, now, out.ExpiresAtMs, strings.Join(t.Projects, ","))
		if isUnique(err) {
			var expiresAtMs *int64
			if err := tx.QueryRowContext(ctx, qTokenNameHolder, t.Name).Scan(&expiresAtMs); err != nil {
				return err
			}
			return apitoken.ErrNameTaken(t.Name, expiresAtMs, now)
		}
		if err != nil {
			return err
		}
		return appendAudit(ctx, tx, now, t.Created())
	})
	if err != nil {
		return apitoken.Token{}, err
	}
	return out, nil
}

// TokenList returns every token by name, revoked ones included.
func (s *Store) TokenList(ctx context.Context) ([]apitoken.Token, error) {
	var out []apitoken.Token
	err := s.read(ctx, "list tokens", func(tx *txn) error {
		rows, err := tx.QueryContext(ctx, qTokensList)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			t, err := scanToken(rows)
			if err != nil {
				return err
			}
			out = append(out, t)
		}
		return rows.Err()
	})
	return out, err
}

// TokenRevoke revokes the unrevoked token of that name, expired or not,
// and ends the console sessions signed in with it in the same
// transaction.
func (s *Store) TokenRevoke(ctx context.Context, name, actor string) error {
	return s.write(ctx, "revoke token "+name, durable, func(tx *txn) error {
		var digest []byte
		var id string
		now := s.nowMs()
		err := tx.QueryRowContext(ctx, qTokenRevoke, name, now).Scan(&digest, &id)
		if errors.Is(err, sql.ErrNoRows) {
			return apitoken.ErrNoSuchToken(name)
		}
		if err != nil {
			return err
		}
		if err := appendAudit(ctx, tx, now, apitoken.Revoked(id, name, actor)); err != nil {
			return err
		}
		return endSessionsOf(ctx, tx, websession.Signin{TokenDigest: digest}.Principal())
	})
}

// TokenByDigest finds the token a request presents.
func (s *Store) TokenByDigest(ctx context.Context, digest []byte) (apitoken.Token, error) {
	var t apitoken.Token
	err := s.read(ctx, "authenticate", func(tx *txn) error {
		var err error
		t, err = scanToken(tx.QueryRowContext(ctx, qTokenByDigest, digest))
		if errors.Is(err, sql.ErrNoRows) {
			return qlerror.New(qlerror.NotFound, "no such token")
		}
		return err
	})
	return t, err
}

// TokenTouch records a token's use at atMs.
func (s *Store) TokenTouch(ctx context.Context, id string, atMs int64) error {
	return s.write(ctx, "record token use", routine, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, qTokenTouch, id, atMs)
		return err
	})
}

func scanToken(r scanner) (apitoken.Token, error) {
	var t apitoken.Token
	var scope, projects string
	err := r.Scan(&t.ID, &t.Name, &scope, &t.CreatedAtMs, &t.ExpiresAtMs, &t.RevokedAtMs, &t.LastUsedAtMs, &projects)
	t.Scope = apitoken.Scope(scope)
	if projects != "" {
		t.Projects = strings.Split(projects, ",")
	}
	return t, err
}

// cmpErr prefers a driver error to the domain one.
func cmpErr(driver, domain error) error {
	if driver != nil {
		return driver
	}
	return domain
}
