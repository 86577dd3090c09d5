package httpapi

import (
	"log/slog"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/console"
)

// /api and /api/ are the API's, not the console's, even where a console is
// served: a client that asks them with its token gets the API's 404
// no_such_endpoint in JSON, not a redirect to the console's sign-in page.
func TestTheAPIsRootIsTheAPIsNoSuchEndpointNotTheConsoles(t *testing.T) {
	t.Parallel()
	st, tokens := tokenStore(t)
	h := NewHandler(Config{Runs: st, Tokens: st, Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler),
		Console: console.New(console.Config{Log: slog.New(slog.DiscardHandler)})})
	for _, path := range []string{"/api", "/api/"} {
		if a := request(t, h, "GET", path, tokens[apitoken.Read], ""); a.status != 404 || a.reason != string(RefusalNoSuchEndpoint) {
			t.Errorf("GET %s with a token: %d %s %q; want 404 %s", path, a.status, a.reason, a.raw, RefusalNoSuchEndpoint)
		}
	}
}
