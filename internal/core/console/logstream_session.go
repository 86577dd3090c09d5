package console

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
)

// stillFollowed checks the session of a live log that stays open, as a
// page request would, once per websession.SeenEvery while it sends (never
// per line): the check records a use, so a person watching one Run's
// output for hours is not signed out for going unused, and a session
// that ended meanwhile (signed out, past its lifetime, its token revoked
// or its user disabled) ends the stream, which then says so and that
// signing in again follows it. The check records the use as a page's
// does, at most once per websession.SeenEvery, and lengthens nothing: the
// session still ends at its lifetime. A store that does not answer, or
// does not record the use within followSeenWithin (another process holds
// the database file), decides nothing: the stream goes on sending the
// output, and says the check was not done (checked false), so the next
// poll tries again rather than a websession.SeenEvery later. Only the first failure of a
// run is logged (failing: the check before failed too), not every poll's.
// A user's session that two-step sign-in, required since the stream
// began, keeps at the wall (walled) ends the stream too, which says so
// and where to set it up: the wall holds for what a page opened before
// shows, not only for the pages asked after. A token's session is never
// walled.
func (c *Console) stillFollowed(r *http.Request, st *stream, l string, failing bool) (followed, checked bool) {
	ctx, cancel := context.WithTimeout(r.Context(), c.cfg.RequestTimeout)
	defer cancel()
	s, _, err := c.sessionOf(r.WithContext(ctx), true)
	if err != nil && !errors.Is(err, errSessionIdle) {
		if r.Context().Err() == nil && !failing {
			c.cfg.Log.Warn("console: checking the session of a live log", "code", CodeSessionCheckFailed, "err", err)
		}
		return true, false
	}
	if s == nil {
		stopFollowing(st, tr(l, "log.signedout"))
		return false, true
	}
	if s.userID == "" || c.cfg.TwoStep == nil {
		return true, true
	}
	walled, err := c.cfg.TwoStep.TwoStepWalled(ctx, s.userID)
	if err != nil {
		if r.Context().Err() == nil && !failing {
			c.cfg.Log.Warn("console: reading whether two-step sign-in is required for a live log", "code", CodeTwoStepStoreFailed, "err", err)
		}
		return true, false
	}
	if walled {
		stopFollowing(st, tr(l, "log.walled"))
		return false, true
	}
	return true, true
}

// stopFollowing ends a live log with a "stopped" event saying msg, which
// the page shows.
func stopFollowing(st *stream, msg string) {
	b, _ := json.Marshal(msg) // a string always marshals
	if st.send("event: stopped\ndata: %s\n\n", b) == nil {
		_ = st.rc.Flush()
	}
}
