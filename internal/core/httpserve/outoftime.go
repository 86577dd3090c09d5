package httpserve

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// NoteOutOfTime logs, under code, one line for a request whose time limit
// (ctx, limit long, begun at start) ran out while it was served: its
// method, its route (the pattern it matched, never the query string, which
// may carry what a user typed) and how long it took. A request the client
// gave up on is not the server's budget running out, and says nothing.
// Call it once the request is answered, before ctx is cancelled.
func NoteOutOfTime(ctx context.Context, log *slog.Logger, code string, r *http.Request, start time.Time, limit time.Duration) {
	if ctx.Err() != context.DeadlineExceeded || r.Context().Err() != nil {
		return
	}
	route := r.Pattern
	if route == "" {
		route = r.URL.Path
	}
	log.Warn("a request ran out of its time limit: its database reads were cancelled and it was answered 504",
		"code", code, "method", r.Method, "route", route, "elapsed_ms", time.Since(start).Milliseconds(), "limit_ms", limit.Milliseconds())
}
