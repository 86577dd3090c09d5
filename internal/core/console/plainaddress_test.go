package console

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/account"
)

// The setup form sent from a page loaded at the plain address of an
// https console, without the Secure cookie the browser never kept, is
// answered as a sign-in is: a page linking the setup page at the
// console's address, and the code is not spent.
func TestASetupThroughThePlainAddressOfAnHTTPSConsoleLinksItsAddress(t *testing.T) {
	holder, code := account.NewSetupCode()
	c := New(Config{Secure: true, PublicURL: "https://ql.example.com", Setup: holder})
	r := httptest.NewRequest(http.MethodPost, "/setup", strings.NewReader(url.Values{"csrf": {"x.y"}, "user": {"lead"}, "code": {code}}.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Origin", "http://10.0.0.5:8080")
	w := httptest.NewRecorder()
	c.ServeHTTP(w, r)
	const link = `<a href="https://ql.example.com/setup">https://ql.example.com/setup</a>`
	if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), link) {
		t.Fatalf("a setup from the plain address: %d; want 403 linking %s:\n%s", w.Code, link, w.Body)
	}
	if !holder.Open() || !holder.Spend(code) {
		t.Fatal("the setup code was spent by a form that could not work")
	}
}
