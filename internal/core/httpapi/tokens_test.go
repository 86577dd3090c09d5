package httpapi

import (
	"net/http"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// tokenStore is a real embedded database holding one token per scope.
func tokenStore(t testing.TB) (*sqlitestore.Store, map[apitoken.Scope]string) {
	t.Helper()
	st := sqlitetest.Open(t)
	out := map[apitoken.Scope]string{}
	for _, s := range apitoken.Scopes {
		secret, _, err := apitoken.Create(t.Context(), st, "tester", ids.New(), "tok-"+string(s), s, 0)
		if err != nil {
			t.Fatal(err)
		}
		out[s] = secret
	}
	return st, out
}

// authed is cfg's handler with a real token store, answering every
// request as if it carried an admin token (tests of the endpoints
// themselves, not of authentication).
func authed(t *testing.T, cfg Config) http.Handler {
	t.Helper()
	st, tokens := tokenStore(t)
	cfg.Tokens = st
	h := NewHandler(cfg)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("Authorization", "Bearer "+tokens[apitoken.Admin])
		h.ServeHTTP(w, r)
	})
}
