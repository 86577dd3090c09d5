package console

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/websession"
)

// A session lives in the database (Config.Sessions), keyed by the digest
// of its cookie's token, so that any replica, and the server after a
// restart, finds it. The process keeps its own table beside it only as a
// cache of what a session holds in memory, its flashes (flash.go): each
// request reads the stored row first, so a session ended anywhere ends
// here too, and an entry this process lost is made again from the row.

// sessionCSRF is the CSRF token of the session whose cookie holds id: an HMAC
// of a fixed label under the session's own token, so that every replica
// derives the same one without storing it. It is as unguessable as the
// cookie, which a page on another site can neither read (HttpOnly) nor
// send (SameSite=Strict); a page that shows it gives nothing of the
// cookie away, and the stored digest (SHA-256 of the token) is not it.
func sessionCSRF(id string) string {
	return base64.RawURLEncoding.EncodeToString(sessionKey(id, "qinglong console csrf"))
}

// sessionKey is the key of one use (label) for the session whose cookie
// holds id: an HMAC of the label under the session's own token. Every
// replica, and the server started again, derives the same key from the
// cookie alone; a key of one label gives nothing of another's, nor of the
// token.
func sessionKey(id, label string) []byte {
	m := hmac.New(sha256.New, []byte(id))
	m.Write([]byte(label))
	return m.Sum(nil)
}

// storedSession returns the session of the cookie id from the store, nil
// when there is none (or it has expired on the store's clock), and
// errSessionIdle when its last use is Config.SessionIdle old on the
// store's clock (it is then ended); the process's entry of it keeps its
// flashes. Its last use is written at most once per websession.SeenEvery,
// judged on the store's clock too: this server's may be off. A use not
// recorded is a warning or, following (a live log's check), the error;
// there the write waits at most followSeenWithin.
func (c *Console) storedSession(ctx context.Context, id string, following bool) (*session, error) {
	row, err := c.cfg.Sessions.SessionByDigest(ctx, websession.Digest(id))
	if qlerror.CodeOf(err) == qlerror.NotFound {
		c.sessions.remove(id)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if row.ReadAtMs-row.LastSeenAtMs >= c.cfg.SessionIdle.Milliseconds() {
		// The row decides, as for an expired one: the session is idle even
		// when its delete fails, and the next read finds it idle again.
		if err := c.end(ctx, id); err != nil {
			c.cfg.Log.Warn("console: ending an idle session", "code", CodeSessionStoreFailed, "err", err)
		}
		return nil, errSessionIdle
	}
	if row.ReadAtMs-row.LastSeenAtMs >= websession.SeenEvery.Milliseconds() {
		if err := c.sessionSeen(ctx, row.Digest, following); err != nil {
			if following {
				return nil, fmt.Errorf("recording the session's use: %w", err)
			}
			// Informational: the session stands, and the next request
			// tries again.
			c.cfg.Log.Warn("console: recording a session's use", "code", CodeSessionSeenFailed, "err", err)
		}
	}
	if s, ok := c.sessions.held(id); ok {
		return s, nil
	}
	s := &session{id: id, csrf: sessionCSRF(id), digest: row.TokenDigest, userID: row.UserID, stamp: row.Stamp, name: row.Name, scope: row.Scope, expiresMs: row.ExpiresAtMs}
	c.sessions.add(s)
	return s, nil
}

// followSeenWithin bounds a live log's write of its session's use. The
// check comes before the round's reads of the Run and its output, and a
// write waits for another process's hold on a SQLite file up to the
// request's time limit: unbounded, every round stalled that long while
// the file was held, and the output the page shows with it. A write takes
// milliseconds when the file is free; one that waited this long fails the
// check, which the next poll tries again.
const followSeenWithin = 250 * time.Millisecond

// sessionSeen records a use of the session of digest; following, within
// followSeenWithin.
func (c *Console) sessionSeen(ctx context.Context, digest []byte, following bool) error {
	if following {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, followSeenWithin)
		defer cancel()
	}
	return c.cfg.Sessions.SessionSeen(ctx, digest)
}

// store records a new session in the database (when the console has one)
// before its cookie is set; its expiry is then the store's, on the
// store's clock.
func (c *Console) store(ctx context.Context, s *session) error {
	if c.cfg.Sessions == nil {
		return nil
	}
	row, err := c.cfg.Sessions.SessionCreate(ctx, websession.Signin{Digest: websession.Digest(s.id), UserID: s.userID, Stamp: s.stamp, TokenDigest: s.digest,
		Name: s.name, Scope: s.scope}, c.cfg.SessionTTL, maxSessionsPerPrincipal)
	if err != nil {
		return err
	}
	s.expiresMs = row.ExpiresAtMs
	return nil
}

// end ends the session of id here and in the database.
func (c *Console) end(ctx context.Context, id string) error {
	c.sessions.remove(id)
	if c.cfg.Sessions == nil {
		return nil
	}
	return c.cfg.Sessions.SessionEnd(ctx, websession.Digest(id))
}

// startFailed answers a sign-in whose session could not be stored.
func (c *Console) startFailed(w http.ResponseWriter, r *http.Request, err error) {
	c.cfg.Log.Warn("console: storing a new session", "code", CodeSessionStoreFailed, "err", err)
	c.renderSignin(w, r, tr(lang(r), "err.sessionstart"), http.StatusServiceUnavailable)
}

// endOthers ends every session of s's user but s, here and in the
// database. A failure leaves them refused all the same: each fails its
// password stamp at its next request.
func (c *Console) endOthers(ctx context.Context, s *session) error {
	if c.cfg.Sessions == nil {
		return nil
	}
	return c.cfg.Sessions.SessionEndOthers(ctx, s.userID, websession.Digest(s.id))
}
