package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/websession"
)

var (
	_ apitoken.Manager       = (*Admin)(nil)
	_ apitoken.Authenticator = (*Runtime)(nil)
)

// TokenCreate stores a token (apitoken.Create validates and draws it).
func (a *Admin) TokenCreate(ctx context.Context, t apitoken.NewToken) (apitoken.Token, error) {
	out := apitoken.Token{ID: t.ID, Name: t.Name, Scope: t.Scope, Projects: t.Projects}
	projects := t.Projects
	if projects == nil {
		projects = []string{}
	}
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, sqlTokenInsert, t.ID, t.Name, string(t.Scope), t.Digest, t.ExpiresIn.Milliseconds(), projects).Scan(&out.CreatedAtMs, &out.ExpiresAtMs); err != nil {
			return err
		}
		return appendAudit(ctx, tx, &out.CreatedAtMs, t.Created())
	})
	if sqlState(err) == stateUniqueViolation {
		var expiresAtMs *int64
		var nowMs int64
		if err := a.pool.QueryRow(ctx, sqlTokenHolder, t.Name).Scan(&expiresAtMs, &nowMs); err != nil {
			return apitoken.Token{}, mapErr(err, "reading the token holding the name "+t.Name)
		}
		return apitoken.Token{}, apitoken.ErrNameTaken(t.Name, expiresAtMs, nowMs)
	}
	if err != nil {
		return apitoken.Token{}, mapErr(err, "creating token "+t.Name)
	}
	return out, nil
}

// TokenList returns every token by name, revoked ones included.
func (a *Admin) TokenList(ctx context.Context) ([]apitoken.Token, error) {
	rows, err := a.pool.Query(ctx, sqlTokensList)
	if err != nil {
		return nil, mapErr(err, "listing tokens")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (apitoken.Token, error) { return scanToken(row) })
	return out, mapErr(err, "listing tokens")
}

// TokenRevoke revokes the unrevoked token of that name, expired or not,
// and ends the console sessions signed in with it in the same
// transaction, so they end on every replica at once.
func (a *Admin) TokenRevoke(ctx context.Context, name, actor string) error {
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		var digest []byte
		var id string
		var at int64
		if err := tx.QueryRow(ctx, sqlTokenRevoke, name).Scan(&digest, &id, &at); err != nil {
			return err
		}
		if err := appendAudit(ctx, tx, &at, apitoken.Revoked(id, name, actor)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, sqlConsoleSessionEndPrincipal, websession.Signin{TokenDigest: digest}.Principal())
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return apitoken.ErrNoSuchToken(name)
	}
	return mapErr(err, "revoking token "+name)
}

// TokenByDigest finds the token a request presents.
func (s *Runtime) TokenByDigest(ctx context.Context, digest []byte) (apitoken.Token, error) {
	t, err := scanToken(s.pool.QueryRow(ctx, sqlTokenByDigest, digest))
	if errors.Is(err, pgx.ErrNoRows) {
		return apitoken.Token{}, qlerror.New(qlerror.NotFound, "no such token")
	}
	return t, mapErr(err, "authenticating a token")
}

// TokenTouch records a token's use at atMs.
func (s *Runtime) TokenTouch(ctx context.Context, id string, atMs int64) error {
	_, err := s.pool.Exec(ctx, sqlTokenTouch, id, atMs)
	return mapErr(err, "recording a token's use")
}

func scanToken(row pgx.Row) (apitoken.Token, error) {
	var t apitoken.Token
	var scope string
	err := row.Scan(&t.ID, &t.Name, &scope, &t.CreatedAtMs, &t.ExpiresAtMs, &t.RevokedAtMs, &t.LastUsedAtMs, &t.Projects)
	t.Scope = apitoken.Scope(scope)
	if len(t.Projects) == 0 {
		t.Projects = nil
	}
	return t, err
}
