package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"golang.org/x/time/rate"

	"github.com/qinglong/qinglong/internal/core/authlimit"
	"github.com/qinglong/qinglong/internal/core/authlog"
)

// SessionRate and SessionBurst bound the requests of one signed-in
// session with the kind of limit the API bounds a token's with
// (authlimit.Keyed) and its rate; the burst is larger than a token's 40,
// since a browser restoring its tabs sends all their pages at once. A
// page as a browser loads it counts 1 to 3 requests: the page, once more
// at the first page of a browser whose time zone the server did not know
// yet (app.js reloads it once), and a running Run's live log; its
// stylesheet, script and icon are served without a session (and kept an
// hour), so they count nothing. Thirty tabs restored at once stay within
// the burst; a script or a runaway loop is held to the rate.
const (
	SessionRate  rate.Limit = 20
	SessionBurst int        = 100
)

// sessionLimits holds each session's request budget.
type sessionLimits struct {
	set   *authlimit.Keyed
	tries authlimit.Tries
}

func newSessionLimits() *sessionLimits {
	return &sessionLimits{set: authlimit.NewKeyed(SessionRate, SessionBurst, maxSessions)}
}

// allow spends one of the requests of the session whose cookie is id at
// nowMs, reporting false when it has none left. It is asked before the
// session is looked up, so a cookie that names no session spends tries of
// its own, which no session has; the set forgets the keys with the most
// tries left first, so a flood of such cookies never resets a busy
// session's count.
func (l *sessionLimits) allow(nowMs int64, id string) bool {
	return l.tries.Allow(time.UnixMilli(nowMs), l.set.Key(id))
}

// overRate answers a request past the rate of the session whose cookie is
// id, before the session was looked up: a page (429, Retry-After: 1)
// saying to slow down, shown as to no session, since none was checked; to
// a live log, whose answer the page shows only as an event, the "stopped"
// event saying so. The line names the session's user or token as this
// server last found it, from memory: the store is not asked.
func (c *Console) overRate(w http.ResponseWriter, r *http.Request, id string, rt route) {
	l := lang(r)
	name := ""
	if s, ok := c.sessions.held(id); ok {
		name = s.name
	}
	c.authLog.Throttled(authlog.Event{Surface: authlog.SurfaceConsole, Addr: remoteHost(r), Name: name, Reason: authlog.ReasonSessionOverRate})
	msg := fmt.Sprintf(tr(l, "err.sessionrate"), float64(SessionRate))
	if rt.pattern == "/runs/{id}/log" {
		st := &stream{w: w, rc: http.NewResponseController(w)}
		w.Header().Set("Content-Type", "text/event-stream")
		b, _ := json.Marshal(msg) // a string always marshals
		if st.send("event: stopped\ndata: %s\n\n", b) == nil {
			_ = st.rc.Flush()
		}
		return
	}
	w.Header().Set("Retry-After", "1")
	c.failWith(w, r, nil, http.StatusTooManyRequests, msg)
}
