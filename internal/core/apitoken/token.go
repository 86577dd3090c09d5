// Package apitoken is the profile-neutral model of API tokens: their
// scopes, their secret's shape and digest, and the store contracts both
// adapters implement. A token is shown once when created and kept only as
// its SHA-256: the secret is 32 random bytes, so a plain digest is as hard
// to invert as the secret is to guess, and a lookup is one indexed read.
package apitoken

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// Scope is what a token may do. Each scope includes the ones below it:
// admin ⊇ operate ⊇ read.
type Scope string

// The three scopes.
const (
	// Read lists and shows runs and triggers.
	Read Scope = "read"
	// Operate also pauses, resumes, runs now, backfills and cancels.
	Operate Scope = "operate"
	// Admin also changes definitions.
	Admin Scope = "admin"
)

// Scopes lists the scopes from least to most privileged.
var Scopes = []Scope{Read, Operate, Admin}

func (s Scope) rank() int {
	for i, x := range Scopes {
		if x == s {
			return i
		}
	}
	return -1
}

// Valid reports whether s is one of the three scopes.
func (s Scope) Valid() bool { return s.rank() >= 0 }

// Allows reports whether a token of scope s may use a route that needs
// scope need.
func (s Scope) Allows(need Scope) bool {
	return s.Valid() && need.Valid() && s.rank() >= need.rank()
}

// The reasons of a token's refusals that a user can cause: a scope or an
// expiry that cannot be read, a name an active token holds, a revoke of a
// name none does. The last is not the API's token_missing (a request
// that sent no token): a script matching the reason must not read "no
// such token to revoke" as "I sent no credential".
const (
	RefusalScope       qlerror.Reason = "token_scope_invalid"
	RefusalExpiry      qlerror.Reason = "token_expiry_invalid"
	RefusalNameTaken   qlerror.Reason = "token_name_taken"
	RefusalNoSuchToken qlerror.Reason = "token_not_found"
)

// ParseScope checks a scope given by a user.
func ParseScope(raw string) (Scope, error) {
	s := Scope(raw)
	if !s.Valid() {
		return "", qlerror.New(qlerror.Invalid, "scope %q is not one of read, operate, admin", raw).Because(RefusalScope)
	}
	return s, nil
}

// Prefix starts every token, so a leaked one is recognisable (secret
// scanners, logs) as a QingLong API token.
const Prefix = "qlt_"

const secretBytes = 32

// NewSecret draws a token and returns it with its digest.
func NewSecret() (secret string, digest []byte, err error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", nil, qlerror.Wrap(qlerror.Internal, err, "drawing an API token")
	}
	secret = Prefix + base64.RawURLEncoding.EncodeToString(b)
	return secret, Digest(secret), nil
}

// Digest is the stored form of a token.
func Digest(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// LooksLikeToken reports whether s has a token's shape; anything else is
// refused before any database read.
func LooksLikeToken(s string) bool { return ShapeProblem(s) == "" }

// MaxExpiry bounds --expires.
const MaxExpiry = 3650 * 24 * time.Hour

// ParseExpiry reads a lifetime, from one minute to ten years, as every
// user-given duration is read (validate.ParseDuration): 90d, 12h, 1d12h.
func ParseExpiry(raw string) (time.Duration, error) {
	d, ok := validate.ParseDuration(raw)
	if !ok || d < time.Minute || d > MaxExpiry {
		return 0, qlerror.New(qlerror.Invalid, "%s", validate.NotADuration("expiry", raw, time.Minute, MaxExpiry)).Because(RefusalExpiry, "value", raw, "min", validate.DurationBound(time.Minute), "max", validate.DurationBound(MaxExpiry))
	}
	return d, nil
}

// expirySetting writes a lifetime as --expires takes it: whole days (90d),
// else a duration (12h, 90m), so a refusal reads like what was typed
// rather than Go's 2160h0m0s.
func expirySetting(d time.Duration) string {
	const day = 24 * time.Hour
	if d%day == 0 {
		return strconv.FormatInt(int64(d/day), 10) + "d"
	}
	return validate.Duration(d)
}

// State of a token.
const (
	StateActive  = "active"
	StateExpired = "expired"
	StateRevoked = "revoked"
)

// Token is one token as stored, without its secret.
type Token struct {
	ID           string
	Name         string
	Scope        Scope
	CreatedAtMs  int64
	ExpiresAtMs  *int64
	RevokedAtMs  *int64
	LastUsedAtMs *int64
	// Projects are the names of the projects the token may act on,
	// sorted; none means every project.
	Projects []string
	// Actor is who creates it, as the audit trail names them.
	Actor string
}

// StateAt is the token's state at nowMs.
func (t Token) StateAt(nowMs int64) string {
	switch {
	case t.RevokedAtMs != nil:
		return StateRevoked
	case t.ExpiresAtMs != nil && *t.ExpiresAtMs <= nowMs:
		return StateExpired
	}
	return StateActive
}

// NewToken is a token to create.
type NewToken struct {
	ID     string
	Name   string
	Scope  Scope
	Digest []byte
	// ExpiresIn is the lifetime from creation (store time); zero never
	// expires.
	ExpiresIn time.Duration
	// Projects bind the token to those projects (sorted, no repeats);
	// none acts on every project.
	Projects []string
	// Actor is who creates it, as the audit trail names them.
	Actor string
}

// Manager creates, lists and revokes tokens: the admin's work (on the
// cluster, the admin role).
type Manager interface {
	// TokenCreate stores a token; Conflict when an unrevoked token, active
	// or expired, has the name (ErrNameTaken).
	TokenCreate(ctx context.Context, t NewToken) (Token, error)
	// TokenList returns every token by name, revoked ones included.
	TokenList(ctx context.Context) ([]Token, error)
	// TokenRevoke revokes the unrevoked token of that name, active or
	// expired, and deletes the console sessions signed in with it
	// (websession) in the same transaction; NotFound when there is none.
	// actor is who revokes it, as the audit trail names them.
	TokenRevoke(ctx context.Context, name, actor string) error
}

// Authenticator is what a server needs of the store: find a token by its
// digest and record its use (on the cluster, the runtime role, which may
// do nothing else with tokens).
type Authenticator interface {
	// TokenByDigest returns the token with that digest, whatever its
	// state; NotFound when there is none.
	TokenByDigest(ctx context.Context, digest []byte) (Token, error)
	// TokenTouch records that the token was used at atMs (never moving
	// the time back).
	TokenTouch(ctx context.Context, id string, atMs int64) error
}

// Create validates a new token's settings, draws its secret and stores
// it; the secret is returned to be shown once. Given projects, the token
// acts on those projects only (a project need not exist yet: a token can
// be handed out before its project's first apply).
func Create(ctx context.Context, m Manager, actor, id, name string, scope Scope, expiresIn time.Duration, projects ...string) (string, Token, error) {
	if err := validate.Name("token name", name); err != nil {
		return "", Token{}, err
	}
	if !scope.Valid() {
		return "", Token{}, qlerror.New(qlerror.Invalid, "scope %q is not one of read, operate, admin", scope).Because(RefusalScope)
	}
	if expiresIn != 0 && (expiresIn < time.Minute || expiresIn > MaxExpiry) {
		return "", Token{}, qlerror.New(qlerror.Invalid, "%s", validate.NotADuration("expiry", expirySetting(expiresIn), time.Minute, MaxExpiry)).Because(RefusalExpiry, "value", expirySetting(expiresIn), "min", validate.DurationBound(time.Minute), "max", validate.DurationBound(MaxExpiry))
	}
	bound, err := NormalProjects("token", projects)
	if err != nil {
		return "", Token{}, err
	}
	secret, digest, err := NewSecret()
	if err != nil {
		return "", Token{}, err
	}
	t, err := m.TokenCreate(ctx, NewToken{ID: id, Name: name, Scope: scope, Digest: digest, ExpiresIn: expiresIn, Projects: bound, Actor: actor})
	if err != nil {
		return "", Token{}, err
	}
	return secret, t, nil
}

// ErrNameTaken is the message of a create whose name an unrevoked token
// holds; expiresAtMs is that token's expiry, nowMs the store's time. An
// expired token holds its name until it is revoked (its row stays for
// audit), which the message says rather than calling it active.
func ErrNameTaken(name string, expiresAtMs *int64, nowMs int64) error {
	if expiresAtMs != nil && *expiresAtMs <= nowMs {
		return qlerror.New(qlerror.Conflict, "token %q expired at %s but holds its name until it is revoked: revoke it (`ql tokens revoke %s`; it stays listed) or choose another name",
			name, time.UnixMilli(*expiresAtMs).UTC().Format(time.RFC3339), name).Because(RefusalNameTaken, "state", StateExpired)
	}
	return qlerror.New(qlerror.Conflict, "an active token named %q exists; revoke it first (`ql tokens revoke %s`) or choose another name", name, name).Because(RefusalNameTaken, "state", StateActive)
}

// ErrNoSuchToken is the message of a revoke of a name no unrevoked token
// (active or expired) has.
func ErrNoSuchToken(name string) error {
	return qlerror.New(qlerror.NotFound, "no unrevoked token is named %q; list them with `ql tokens list`", name).Because(RefusalNoSuchToken)
}
