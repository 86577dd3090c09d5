package console

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// A request of a method an address does not take is answered with the
// console's page in the request's language, saying which methods it takes,
// not a line of English.
func TestAMethodAnAddressDoesNotTakeIsRefusedInThePagesLanguage(t *testing.T) {
	t.Parallel()
	c := New(Config{})
	for lang, want := range map[string]string{
		"zh": "此地址不接受 PUT 请求，只接受 GET。",
		"en": "This address does not take a PUT request; it takes GET.",
	} {
		w := httptest.NewRecorder()
		c.ServeHTTP(w, httptest.NewRequest(http.MethodPut, "/runs?lang="+lang, nil))
		if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET" || !strings.Contains(w.Body.String(), want) ||
			!strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") {
			t.Errorf("%s: PUT /runs: %d, Allow %q, %q; want 405 allowing GET, a page saying %q:\n%s", lang, w.Code, w.Header().Get("Allow"), w.Header().Get("Content-Type"), want, w.Body)
		}
	}
}

// Signed in, that page keeps the console's navigation, so whoever typed
// the address can go on from it.
func TestAMethodRefusedToASignedInUserKeepsTheNavigation(t *testing.T) {
	t.Parallel()
	c := New(Config{Tokens: &liveToken{}})
	c.sessions.add(&session{id: "s1", digest: []byte("d1"), name: "viewer", scope: apitoken.Read, expiresMs: 1 << 62, seenMs: time.Now().UnixMilli()})
	for _, signedIn := range []bool{false, true} {
		r := httptest.NewRequest(http.MethodPut, "/runs", nil)
		if signedIn {
			r.AddCookie(&http.Cookie{Name: sessionCookie, Value: "s1"})
		}
		w := httptest.NewRecorder()
		c.ServeHTTP(w, r)
		if nav := strings.Contains(w.Body.String(), `<a href="/triggers">`); w.Code != http.StatusMethodNotAllowed || nav != signedIn {
			t.Errorf("PUT /runs signed in %v: %d, navigation %v; want 405 with the navigation only when signed in:\n%s", signedIn, w.Code, nav, w.Body)
		}
	}
}
