// Package websession is the contract of the console's stored sessions: one
// row per signed-in browser, kept in the database so that a session made on
// one server works on every replica and outlives a restart.
//
// The browser holds a random token in its session cookie; a row holds only
// the token's SHA-256 (Digest), never the token, so reading the table gives
// nobody a cookie. A row names who signed in (a user's id and password
// stamp, or an API token's digest) and what it may do, but it is not a
// credential of its own: every request looks that user or token up again,
// and a user disabled, deleted or given a new password, or a token revoked
// or expired, ends the session whatever its row says.
//
// A session lasts its lifetime from sign-in, and the console ends it
// sooner once its last use is older than its idle time (compared with the
// row's LastSeenAtMs on the store's clock, ReadAtMs). Every time of a session, its sign-in, last use
// and expiry, is written and compared on the store's clock, never the
// caller's: on the cluster that is the database's, so a replica whose
// clock is off neither lengthens nor shortens a session made or checked
// there. The caller therefore passes a lifetime, not times. Its last use
// is written at most once per SeenEvery, so browsing does not write on
// every request. Rows past their expiry are deleted when read, ExpiredBatch
// at a time at each sign-in, and by the retention pass, so the table holds
// little more than the live sessions. Disabling or deleting a user, or
// setting its password, and revoking an API token delete the sessions
// signed in with it in the same transaction (account.Manager,
// apitoken.Manager), so they end at once on every server.
package websession

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// SeenEvery is the least time between two writes of a session's last use.
const SeenEvery = time.Minute

// ExpiredBatch bounds the expired rows one sign-in deletes, so that a
// sign-in after a long quiet spell does not wait on a large delete.
const ExpiredBatch = 100

// Signin is a session as the console starts it: who signed in and what it
// may do. The store sets its times.
type Signin struct {
	// Digest is the SHA-256 of the cookie's token (Digest), the row's key.
	Digest []byte
	// UserID and Stamp are a user's session: the account and the stamp of
	// the password it signed in with. Empty for a token's session.
	UserID string
	Stamp  string
	// TokenDigest is a token's session: the API token's digest, never the
	// token. Nil for a user's session.
	TokenDigest []byte
	// Name is the user's or the token's name, for the pages and the audit
	// trail; Scope what the session was given at sign-in.
	Name  string
	Scope apitoken.Scope
}

// Session is one signed-in browser as the stores keep it, its times on the
// store's clock.
type Session struct {
	Signin
	// CreatedAtMs is the sign-in, LastSeenAtMs the last use written (at
	// most SeenEvery stale), ExpiresAtMs the end of the session.
	CreatedAtMs, LastSeenAtMs, ExpiresAtMs int64
	// ReadAtMs is the store's clock when SessionByDigest read the row: the
	// caller compares it, not its own clock, with LastSeenAtMs to decide
	// whether a SessionSeen is due.
	ReadAtMs int64
}

// Principal keys whose session it is, for the bound of sessions per user
// or token: a user by its id, a token by its digest (the prefixes keep the
// two kinds apart).
func (s Signin) Principal() string {
	if s.UserID != "" {
		return "user:" + s.UserID
	}
	return "token:" + hex.EncodeToString(s.TokenDigest)
}

// Store keeps the sessions (a server's SQLite store; the cluster's runtime
// role).
type Store interface {
	// SessionCreate stores s, signed in now on the store's clock and
	// expiring lifetime later, and returns it with its times. Past
	// perPrincipal sessions of its principal the oldest sign-ins are
	// ended, so that signing in again and again with one credential
	// replaces only its own sessions; up to ExpiredBatch expired rows of
	// anyone are deleted with it.
	SessionCreate(ctx context.Context, s Signin, lifetime time.Duration, perPrincipal int) (Session, error)
	// SessionByDigest returns the session of digest, NotFound when there
	// is none or it has expired by the store's clock (an expired one is
	// deleted).
	SessionByDigest(ctx context.Context, digest []byte) (Session, error)
	// SessionSeen records a use now on the store's clock, unless the last
	// one written is less than SeenEvery older (then it writes nothing).
	SessionSeen(ctx context.Context, digest []byte) error
	// SessionEnd deletes the session of digest (none is not an error).
	SessionEnd(ctx context.Context, digest []byte) error
	// SessionEndOthers deletes every session of the user but keep's: a
	// password change from the console ends the user's other browsers.
	SessionEndOthers(ctx context.Context, userID string, keep []byte) error
}

// Digest is the key of the session whose cookie holds token.
func Digest(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// ErrNoSession is the error of a session that does not exist or has
// expired.
func ErrNoSession() error {
	return qlerror.New(qlerror.NotFound, "no such console session; sign in again")
}
