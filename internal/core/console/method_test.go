package console

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
